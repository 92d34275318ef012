#include "loom/graph/io/streamed_features.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>

#include <fmt/format.h>

#include "loom/format/digest.hpp"
#include "loom/core/error.hpp"
#include "loom/format/float_rows.hpp"
#include "loom/format/npz_array.hpp"
#include "loom/core/progress.hpp"
#include "loom/graph/finite_values.hpp"

namespace loom::graph::io {

namespace {

constexpr std::int64_t kChunkBytes = std::int64_t{64} << 20;

std::int64_t chunk_rows(std::int64_t dim) {
  return std::max<std::int64_t>(1, kChunkBytes / (4 * std::max<std::int64_t>(dim, 1)));
}

void to_floats(const void* raw, format::DType dtype, std::span<float> out) {
  if (dtype == format::DType::kFloat64) {
    const auto* in = static_cast<const double*>(raw);
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<float>(in[i]);
  } else {
    format::widen_floats(raw, dtype, out);
  }
}

// `rows` rows of `dim` values of `dtype`, read in order by read(count, out), checked finite (or
// replaced) and appended to dir/feat.npy in `store_dtype`; returns the replacement provenance.
nlohmann::json copy_rows(std::int64_t rows, std::int64_t dim, format::DType dtype, const std::string& source,
                         std::optional<float> nan_as, const std::function<void(std::int64_t, void*)>& read,
                         const std::string& dir, format::DType store_dtype) {
  format::NpyWriter out(dir + "/feat.npy", store_dtype, {dim});
  NonFinitePolicy policy{nan_as};
  std::vector<char> raw;
  std::vector<float> values;
  core::ProgressBar bar("import: features", rows, "rows");
  for (std::int64_t first = 0; first < rows; first += chunk_rows(dim)) {
    const std::int64_t count = std::min(chunk_rows(dim), rows - first);
    raw.resize(static_cast<std::size_t>(count * dim) * format::dtype_size(dtype));
    read(count, raw.data());
    values.resize(static_cast<std::size_t>(count * dim));
    to_floats(raw.data(), dtype, values);
    enforce_finite(values, dim, source, "feature", policy, /*first_line=*/0, first);
    if (store_dtype == format::DType::kFloat32) {
      out.append(values.data(), count);
    } else {
      check_fits_dtype(values, dim, store_dtype, source, first);
      const std::vector<char> narrow = format::narrowed(values, store_dtype);
      out.append(narrow.data(), count);
    }
    bar.update(count);
  }
  bar.finish();
  out.finish();
  return policy.to_json();
}

format::NpyArray map_feature_file(const std::string& path) {
  auto a = format::NpyArray::map(path);
  if (a.ndim() != 2 || !format::is_floating(a.dtype()))
    throw Error::in_file(
        path, 0, fmt::format("expected a 2-D float array, found {}-D {}", a.ndim(), format::dtype_name(a.dtype())));
  return a;
}

}  // namespace

StreamedFeatures copied_npz_features(const std::string& archive, const std::string& key, std::int64_t rows,
                                     std::int64_t dim, std::optional<float> nan_as) {
  StreamedFeatures f;
  f.dim = dim;
  f.write = [=](const std::string& dir, format::DType store_dtype) {
    format::NpzArrayReader reader(format::ZipArchive::open(archive), key);
    if (reader.shape() != std::vector<std::int64_t>{rows, dim} || !format::is_floating(reader.dtype()))
      throw Error::in_file(reader.where(), 0, fmt::format("expected {} x {} floats", rows, dim));
    return copy_rows(
        rows, dim, reader.dtype(), reader.where(), nan_as,
        [&](std::int64_t count, void* out) { reader.read(out, count * dim); }, dir, store_dtype);
  };
  return f;
}

StreamedFeatures copied_npy_features(const std::string& path, std::optional<float> nan_as) {
  const format::NpyArray a = map_feature_file(path);
  StreamedFeatures f;
  f.dim = a.cols();
  f.write = [a, path, nan_as](const std::string& dir, format::DType store_dtype) {
    const auto* bytes = static_cast<const char*>(a.data());
    const std::size_t row_bytes = static_cast<std::size_t>(a.cols()) * format::dtype_size(a.dtype());
    std::int64_t next = 0;
    return copy_rows(
        a.rows(), a.cols(), a.dtype(), path, nan_as,
        [&](std::int64_t count, void* out) {
          std::copy_n(bytes + static_cast<std::size_t>(next) * row_bytes, static_cast<std::size_t>(count) * row_bytes,
                      static_cast<char*>(out));
          next += count;
        },
        dir, store_dtype);
  };
  return f;
}

StreamedFeatures mapped_npy_features(const std::string& path) {
  const format::NpyArray a = map_feature_file(path);
  if (a.dtype() != format::DType::kFloat32 && a.dtype() != format::DType::kFloat16)
    throw Error::in_argument("--features", fmt::format("map needs float32 or float16 features; {} holds {} (copy "
                                                       "them instead)",
                                                       path, format::dtype_name(a.dtype())));
  StreamedFeatures f;
  f.dim = a.cols();
  f.mapped_from = std::filesystem::absolute(path).lexically_normal().string();
  f.mapped_dtype = a.dtype();
  f.write = [a, path, digest = f.mapped_digest](const std::string&, format::DType) {
    // Checked and digested in one read of the file: its header, then its rows chunk by chunk.
    const std::size_t row_bytes = static_cast<std::size_t>(a.cols()) * format::dtype_size(a.dtype());
    const auto file_bytes = static_cast<std::int64_t>(std::filesystem::file_size(path));
    const std::int64_t header_bytes = file_bytes - a.rows() * static_cast<std::int64_t>(row_bytes);
    std::string header(static_cast<std::size_t>(std::max<std::int64_t>(header_bytes, 0)), '\0');
    std::ifstream(path, std::ios::binary).read(header.data(), static_cast<std::streamsize>(header.size()));
    std::uint64_t crc = format::crc32_of(header.data(), static_cast<std::int64_t>(header.size()));
    const auto* rows = static_cast<const char*>(a.data());
    core::ProgressBar bar("import: check mapped features", a.rows(), "rows");
    for (std::int64_t first = 0; first < a.rows(); first += chunk_rows(a.cols())) {
      const std::int64_t count = std::min(chunk_rows(a.cols()), a.rows() - first);
      const std::int64_t bad = first_non_finite(a.slice(first, first + count));
      if (bad >= 0)
        throw Error::in_file(
            path, 0,
            fmt::format("row {}, column {}: a feature value is not finite (a mapped file is used as it "
                        "is: import with --features copy --nan-as VALUE to replace such values)",
                        first + bad / a.cols(), bad % a.cols()));
      const auto bytes = count * static_cast<std::int64_t>(row_bytes);
      crc =
          format::crc32_then(crc, format::crc32_of(rows + first * static_cast<std::int64_t>(row_bytes), bytes), bytes);
      bar.update(count);
    }
    bar.finish();
    *digest = format::FileDigest{static_cast<std::uint64_t>(file_bytes), crc}.text();
    return nlohmann::json();
  };
  return f;
}

}  // namespace loom::graph::io
