// Feature normalisation, as GNN papers preprocess raw node features:
//   row:      each row divided by its L1 norm, which for non-negative features is the row sum
//             (Kipf & Welling's and GAT's preprocessing of bag-of-words features); an all-zero
//             row stays zero.
//   standard: each column centred and scaled to unit variance, with the mean and variance of the
//             training nodes (as GraphSAGE's reference code fits its scaler); a constant column
//             is only centred.
// ColumnMoments are additive, so ranks that each hold some training rows sum theirs and
// standardise their own rows with the sum. `loom import --normalize-features` and
// `loom train --normalize-features` both use these.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "loom/core/enum_names.hpp"
#include "loom/graph/store.hpp"

namespace loom::graph {

enum class FeatureNorm { kNone, kRow, kStandard };
inline constexpr core::EnumNames<FeatureNorm, 3> kFeatureNormNames{
    {{"none", FeatureNorm::kNone}, {"row", FeatureNorm::kRow}, {"standard", FeatureNorm::kStandard}}};

// Rows [rows, dim] row-major, in place.
void normalize_rows(std::span<float> rows, std::int64_t dim);
// Sparse rows, each by its L1 norm, in place (binary rows get their values stored).
void normalize_sparse_rows(SparseRows& rows);

struct ColumnMoments {
  std::vector<double> sum, sum_squares;  // per column
  double count = 0;                      // rows counted
};
// Moments of the rows `row_ids` (local row numbers) of `rows`.
ColumnMoments column_moments(std::span<const float> rows, std::int64_t dim, std::span<const std::int64_t> row_ids);
// (x - mean) / std per column, in place; throws Error when the moments count no row.
void standardize_columns(std::span<float> rows, std::int64_t dim, const ColumnMoments& moments);

// Normalises data.feat in place (standard: fitted on data.splits["train"], or on every row when
// there is no training split; sparse rows take row only). Records the normalisation in
// data.provenance.
void normalize_features(GraphData& data, FeatureNorm norm);

}  // namespace loom::graph
