#include "loom/graph/sparse_features.hpp"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "loom/core/error.hpp"
#include "loom/core/parallel.hpp"
#include "loom/format/float_rows.hpp"

namespace loom::graph {

std::int64_t count_nonzero(std::span<const float> values) {
  return static_cast<std::int64_t>(std::count_if(values.begin(), values.end(), [](float v) { return v != 0.0F; }));
}

SparseRows sparse_rows_of(std::span<const float> dense, std::int64_t dim) {
  SparseRows s;
  const std::int64_t rows = dim > 0 ? static_cast<std::int64_t>(dense.size()) / dim : 0;
  s.indptr.reserve(static_cast<std::size_t>(rows) + 1);
  bool all_ones = true;
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* row = dense.data() + r * dim;
    for (std::int64_t c = 0; c < dim; ++c) {
      if (row[c] == 0.0F) continue;
      s.indices.push_back(static_cast<std::int32_t>(c));
      s.values.push_back(row[c]);
      all_ones = all_ones && row[c] == 1.0F;
    }
    s.indptr.push_back(static_cast<std::int64_t>(s.indices.size()));
  }
  if (all_ones) s.values.clear();
  return s;
}

FeatureLayout resolve_feature_layout(FeatureLayoutChoice choice, std::int64_t nonzero, std::int64_t total) {
  switch (choice) {
    case FeatureLayoutChoice::kDense: return FeatureLayout::kDense;
    case FeatureLayoutChoice::kSparse: return FeatureLayout::kSparse;
    case FeatureLayoutChoice::kAuto: break;
  }
  return total > 0 && static_cast<double>(nonzero) <= kAutoSparseDensity * static_cast<double>(total)
             ? FeatureLayout::kSparse
             : FeatureLayout::kDense;
}

SparseRowsWriter::SparseRowsWriter(const std::string& dir, format::DType dtype)
    : dir_(dir),
      dtype_(dtype),
      indptr_(dir + "/feat_indptr.npy", format::DType::kInt64),
      indices_(dir + "/feat_indices.npy", format::DType::kInt32),
      values_(dir + "/feat_values.npy", dtype),
      offsets_{0} {}

void SparseRowsWriter::add_row(std::span<const std::int32_t> columns, std::span<const float> values) {
  columns_.insert(columns_.end(), columns.begin(), columns.end());
  for (std::size_t k = 0; k < columns.size(); ++k) {
    const float v = values.empty() ? 1.0F : values[k];
    values_buffer_.push_back(v);
    all_ones_ = all_ones_ && v == 1.0F;
  }
  nnz_ += static_cast<std::int64_t>(columns.size());
  offsets_.push_back(nnz_);
  if (columns_.size() >= (std::size_t{1} << 20)) flush();
}

void SparseRowsWriter::flush() {
  indptr_.append(std::span<const std::int64_t>(offsets_));
  indices_.append(std::span<const std::int32_t>(columns_));
  if (dtype_ == format::DType::kFloat32) {
    values_.append(std::span<const float>(values_buffer_));
  } else {
    const std::vector<char> narrow = format::narrowed(values_buffer_, dtype_);
    values_.append(narrow.data(), static_cast<std::int64_t>(values_buffer_.size()));
  }
  offsets_.clear();
  columns_.clear();
  values_buffer_.clear();
}

void SparseRowsWriter::finish() {
  flush();
  indptr_.finish();
  indices_.finish();
  values_.finish();
  if (all_ones_) std::filesystem::remove(dir_ + "/feat_values.npy");
}

std::int64_t write_sparse_rows_of(std::span<const float> dense, std::int64_t dim, const std::string& dir,
                                  format::DType dtype) {
  SparseRowsWriter out(dir, dtype);
  std::vector<std::int32_t> columns;
  std::vector<float> values;
  for (std::int64_t r = 0; dim > 0 && r < static_cast<std::int64_t>(dense.size()) / dim; ++r) {
    columns.clear();
    values.clear();
    for (std::int64_t c = 0; c < dim; ++c)
      if (const float v = dense[r * dim + c]; v != 0.0F) {
        columns.push_back(static_cast<std::int32_t>(c));
        values.push_back(v);
      }
    out.add_row(columns, values);
  }
  out.finish();
  return out.nnz();
}

SparseFeatureArrays map_sparse_features(const std::string& dir, std::int64_t rows, std::int64_t nnz,
                                        format::DType dtype) {
  SparseFeatureArrays a;
  a.indptr = format::NpyArray::map(dir + "/feat_indptr.npy");
  a.indices = format::NpyArray::map(dir + "/feat_indices.npy");
  const auto expect = [](const format::NpyArray& array, format::DType want, std::int64_t size) {
    if (array.dtype() != want || array.size() != size)
      throw Error::in_file(array.path(), 0,
                           fmt::format("want {} {} entries (meta.json), found {} {}", size, format::dtype_name(want),
                                       array.size(), format::dtype_name(array.dtype())));
  };
  expect(a.indptr, format::DType::kInt64, rows + 1);
  expect(a.indices, format::DType::kInt32, nnz);
  if (std::filesystem::exists(dir + "/feat_values.npy")) {
    a.values = format::NpyArray::map(dir + "/feat_values.npy");
    expect(a.values, dtype, nnz);
  }
  return a;
}

void check_sparse_features(const SparseFeatureArrays& a, std::int64_t dim) {
  const auto ptr = a.indptr.span<std::int64_t>();
  const auto idx = a.indices.span<std::int32_t>();
  const std::int64_t rows = static_cast<std::int64_t>(ptr.size()) - 1;
  const auto fail = [](const format::NpyArray& array, std::int64_t entry, const std::string& what) {
    throw Error::in_file(array.path(), 0, fmt::format("entry {}: {} (the store is damaged)", entry, what));
  };
  if (ptr[0] != 0) fail(a.indptr, 0, fmt::format("{} is not 0", ptr[0]));
  const std::int64_t bad_ptr = core::first_failing(rows, [&](std::int64_t r) { return ptr[r] <= ptr[r + 1]; });
  if (bad_ptr >= 0) fail(a.indptr, bad_ptr + 1, fmt::format("{} is below the entry before it", ptr[bad_ptr + 1]));
  if (ptr[rows] != static_cast<std::int64_t>(idx.size()))
    fail(a.indptr, rows, fmt::format("{} is not the entry count {}", ptr[rows], idx.size()));
  const std::int64_t bad_row = core::first_failing(rows, [&](std::int64_t r) {
    for (std::int64_t k = ptr[r]; k < ptr[r + 1]; ++k)
      if (idx[k] < 0 || idx[k] >= dim || (k > ptr[r] && idx[k] <= idx[k - 1])) return false;
    return true;
  });
  if (bad_row < 0) return;
  for (std::int64_t k = ptr[bad_row]; k < ptr[bad_row + 1]; ++k) {
    if (idx[k] < 0 || idx[k] >= dim)
      fail(a.indices, k, fmt::format("column {} of row {} outside [0, {})", idx[k], bad_row, dim));
    if (k > ptr[bad_row] && idx[k] <= idx[k - 1])
      fail(a.indices, k,
           fmt::format("column {} of row {} does not follow {}: a row's columns must increase", idx[k], bad_row,
                       idx[k - 1]));
  }
}

void check_sparse_rows(const SparseRows& sparse, std::int64_t rows, std::int64_t dim, const std::string& source) {
  LOOM_CHECK(static_cast<std::int64_t>(sparse.indptr.size()) == rows + 1 && sparse.indptr.front() == 0 &&
                 sparse.indptr.back() == sparse.nnz(),
             "{}: row offsets of {} entries for {} rows and {} entries", source, sparse.indptr.size(), rows,
             sparse.nnz());
  LOOM_CHECK(sparse.values.empty() || static_cast<std::int64_t>(sparse.values.size()) == sparse.nnz(),
             "{}: {} values for {} entries", source, sparse.values.size(), sparse.nnz());
  for (std::int64_t r = 0; r < rows; ++r) {
    LOOM_CHECK(sparse.indptr[r] <= sparse.indptr[r + 1], "{}: row offsets decrease at row {}", source, r);
    for (std::int64_t e = sparse.indptr[r]; e < sparse.indptr[r + 1]; ++e) {
      const std::int32_t c = sparse.indices[e];
      LOOM_CHECK(c >= 0 && c < dim, "{}: entry {} (row {}): column {} outside [0, {})", source, e, r, c, dim);
      LOOM_CHECK(e == sparse.indptr[r] || sparse.indices[e - 1] < c,
                 "{}: entry {} (row {}): columns not strictly increasing within the row", source, e, r);
    }
  }
}

std::vector<float> dense_rows_of(const SparseRows& sparse, std::int64_t dim) {
  const auto rows = static_cast<std::int64_t>(sparse.indptr.size()) - 1;
  std::vector<float> dense(static_cast<std::size_t>(rows * dim), 0.0F);
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t e = sparse.indptr[r]; e < sparse.indptr[r + 1]; ++e)
      dense[r * dim + sparse.indices[e]] = sparse.values.empty() ? 1.0F : sparse.values[e];
  return dense;
}

}  // namespace loom::graph
