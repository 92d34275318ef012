// Sparse feature rows on the wire: what an owner with a sparse table (graph/sparse_features.hpp)
// sends for the rows another rank asks for. Each row is a 4-byte header (its entry count; the top
// bit set where values follow), its columns (int32) and, unless every value of the row is 1, its
// values in the wire dtype (float32 or float16). decode_sparse_rows() writes each row densely
// (zeros elsewhere) at its position in the output, as decode_rows() does for dense wire rows;
// decode_sparse_rows_into() appends them to a CSR instead, never widened.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "loom/feature/row_table.hpp"
#include "loom/graph/sparse_features.hpp"

namespace loom::feature {

// Appends rows `local_rows` of the sparse `table` to `out` (Wire: float or format::Half).
template <class Wire>
void encode_sparse_rows(const RowTable& table, std::span<const std::int64_t> local_rows, std::vector<std::byte>& out);

// Reads `positions.size()` rows from `wire` into out[positions[i] * dim ..) (Out: float or
// format::Half); Error unless `wire` holds exactly that many well-formed rows.
template <class Wire, class Out>
void decode_sparse_rows(std::span<const std::byte> wire, std::int64_t dim, std::span<const std::int64_t> positions,
                        Out* out);

// Appends `count` rows from `wire` to `out`, every value stored (1 where the wire sends none);
// Error unless `wire` holds exactly that many well-formed rows.
template <class Wire>
void decode_sparse_rows_into(std::span<const std::byte> wire, std::int64_t dim, std::int64_t count,
                             graph::SparseRows& out);

}  // namespace loom::feature
