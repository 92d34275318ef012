#include "loom/feature/sparse_wire.hpp"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "loom/core/error.hpp"

namespace loom::feature {

namespace {

constexpr std::uint32_t kValuesFollow = 1U << 31;

template <class T>
void append(std::vector<std::byte>& out, const T* values, std::size_t count) {
  const std::size_t at = out.size();
  out.resize(at + count * sizeof(T));
  std::memcpy(out.data() + at, values, count * sizeof(T));
}

}  // namespace

template <class Wire>
void encode_sparse_rows(const RowTable& table, std::span<const std::int64_t> local_rows, std::vector<std::byte>& out) {
  std::vector<Wire> values;
  for (const std::int64_t r : local_rows) {
    const RowTable::SparseEntries e = table.sparse_entries(r);
    const auto nnz = static_cast<std::uint32_t>(e.columns.size());
    bool ones = true;
    values.resize(nnz);
    for (std::uint32_t k = 0; k < nnz; ++k) {
      const float v = e.value(k);
      ones = ones && v == 1.0F;
      if constexpr (std::is_same_v<Wire, float>)
        values[k] = v;
      else
        values[k] = format::float_to_half(v);
    }
    const std::uint32_t header = nnz | (ones ? 0U : kValuesFollow);
    append(out, &header, 1);
    append(out, e.columns.data(), nnz);
    if (!ones) append(out, values.data(), nnz);
  }
}

template <class Wire, class Out>
void decode_sparse_rows(std::span<const std::byte> wire, std::int64_t dim, std::span<const std::int64_t> positions,
                        Out* out) {
  std::size_t at = 0;
  const auto take = [&](void* into, std::size_t bytes) {
    LOOM_CHECK(at + bytes <= wire.size(), "sparse feature rows: the reply ends inside a row ({} bytes)", wire.size());
    std::memcpy(into, wire.data() + at, bytes);
    at += bytes;
  };
  std::vector<std::int32_t> columns;
  std::vector<Wire> values;
  for (const std::int64_t position : positions) {
    std::uint32_t header = 0;
    take(&header, sizeof(header));
    const std::uint32_t nnz = header & ~kValuesFollow;
    LOOM_CHECK(nnz <= static_cast<std::uint64_t>(dim), "sparse feature rows: a row of {} entries for {} columns", nnz,
               dim);
    columns.resize(nnz);
    take(columns.data(), nnz * sizeof(std::int32_t));
    values.resize(nnz);
    if (header & kValuesFollow) take(values.data(), nnz * sizeof(Wire));
    Out* row = out + position * dim;
    std::fill(row, row + dim, Out{});
    for (std::uint32_t k = 0; k < nnz; ++k) {
      LOOM_CHECK(columns[k] >= 0 && columns[k] < dim, "sparse feature rows: column {} outside [0, {})", columns[k],
                 dim);
      float v = 1.0F;
      if (header & kValuesFollow) {
        if constexpr (std::is_same_v<Wire, float>)
          v = values[k];
        else
          v = format::half_to_float(values[k]);
      }
      if constexpr (std::is_same_v<Out, float>)
        row[columns[k]] = v;
      else
        row[columns[k]] = format::float_to_half(v);
    }
  }
  LOOM_CHECK(at == wire.size(), "sparse feature rows: {} bytes left after {} rows", wire.size() - at, positions.size());
}

template void encode_sparse_rows<float>(const RowTable&, std::span<const std::int64_t>, std::vector<std::byte>&);
template void encode_sparse_rows<format::Half>(const RowTable&, std::span<const std::int64_t>, std::vector<std::byte>&);
template void decode_sparse_rows<float, float>(std::span<const std::byte>, std::int64_t, std::span<const std::int64_t>,
                                               float*);
template void decode_sparse_rows<float, format::Half>(std::span<const std::byte>, std::int64_t,
                                                      std::span<const std::int64_t>, format::Half*);
template void decode_sparse_rows<format::Half, float>(std::span<const std::byte>, std::int64_t,
                                                      std::span<const std::int64_t>, float*);
template void decode_sparse_rows<format::Half, format::Half>(std::span<const std::byte>, std::int64_t,
                                                             std::span<const std::int64_t>, format::Half*);

}  // namespace loom::feature
