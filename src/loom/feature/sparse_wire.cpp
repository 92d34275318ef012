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

namespace {

// Calls fn(k, columns, values) for each of `count` rows of `wire` in turn (values: float32, empty
// where every value of the row is 1); Error unless `wire` holds exactly that many well-formed rows.
template <class Wire, class Fn>
void for_each_wire_row(std::span<const std::byte> wire, std::int64_t dim, std::int64_t count, Fn&& fn) {
  std::size_t at = 0;
  const auto take = [&](void* into, std::size_t bytes) {
    LOOM_CHECK(at + bytes <= wire.size(), "sparse feature rows: the reply ends inside a row ({} bytes)", wire.size());
    std::memcpy(into, wire.data() + at, bytes);
    at += bytes;
  };
  std::vector<std::int32_t> columns;
  std::vector<Wire> wire_values;
  std::vector<float> values;
  for (std::int64_t k = 0; k < count; ++k) {
    std::uint32_t header = 0;
    take(&header, sizeof(header));
    const std::uint32_t nnz = header & ~kValuesFollow;
    LOOM_CHECK(nnz <= static_cast<std::uint64_t>(dim), "sparse feature rows: a row of {} entries for {} columns", nnz,
               dim);
    columns.resize(nnz);
    take(columns.data(), nnz * sizeof(std::int32_t));
    for (const std::int32_t c : columns)
      LOOM_CHECK(c >= 0 && c < dim, "sparse feature rows: column {} outside [0, {})", c, dim);
    values.clear();
    if (header & kValuesFollow) {
      wire_values.resize(nnz);
      take(wire_values.data(), nnz * sizeof(Wire));
      for (const Wire v : wire_values) {
        if constexpr (std::is_same_v<Wire, float>)
          values.push_back(v);
        else
          values.push_back(format::half_to_float(v));
      }
    }
    fn(k, std::span<const std::int32_t>(columns), std::span<const float>(values));
  }
  LOOM_CHECK(at == wire.size(), "sparse feature rows: {} bytes left after {} rows", wire.size() - at, count);
}

}  // namespace

template <class Wire, class Out>
void decode_sparse_rows(std::span<const std::byte> wire, std::int64_t dim, std::span<const std::int64_t> positions,
                        Out* out) {
  const auto count = static_cast<std::int64_t>(positions.size());
  for_each_wire_row<Wire>(wire, dim, count, [&](std::int64_t k, auto columns, auto values) {
    Out* row = out + positions[k] * dim;
    std::fill(row, row + dim, Out{});
    for (std::size_t e = 0; e < columns.size(); ++e) {
      const float v = values.empty() ? 1.0F : values[e];
      if constexpr (std::is_same_v<Out, float>)
        row[columns[e]] = v;
      else
        row[columns[e]] = format::float_to_half(v);
    }
  });
}

template <class Wire>
void decode_sparse_rows_into(std::span<const std::byte> wire, std::int64_t dim, std::int64_t count,
                             graph::SparseRows& out) {
  for_each_wire_row<Wire>(wire, dim, count, [&](std::int64_t, auto columns, auto values) {
    out.indices.insert(out.indices.end(), columns.begin(), columns.end());
    if (values.empty())
      out.values.insert(out.values.end(), columns.size(), 1.0F);
    else
      out.values.insert(out.values.end(), values.begin(), values.end());
    out.indptr.push_back(out.nnz());
  });
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

template void decode_sparse_rows_into<float>(std::span<const std::byte>, std::int64_t, std::int64_t,
                                             graph::SparseRows&);
template void decode_sparse_rows_into<format::Half>(std::span<const std::byte>, std::int64_t, std::int64_t,
                                                    graph::SparseRows&);

}  // namespace loom::feature
