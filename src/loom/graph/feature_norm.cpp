#include "loom/graph/feature_norm.hpp"

#include <cmath>
#include <numeric>

#include "loom/core/error.hpp"
#include "loom/core/parallel.hpp"

namespace loom::graph {

void normalize_rows(std::span<float> rows, std::int64_t dim) {
  LOOM_CHECK(dim > 0 && static_cast<std::int64_t>(rows.size()) % dim == 0, "{} values do not form rows of {}",
             rows.size(), dim);
  const std::int64_t n = static_cast<std::int64_t>(rows.size()) / dim;
  core::parallel_for(n, [&](std::int64_t r) {
    float* row = rows.data() + r * dim;
    double norm = 0;
    for (std::int64_t c = 0; c < dim; ++c) norm += std::fabs(row[c]);
    if (norm == 0) return;
    const float inv = static_cast<float>(1.0 / norm);
    for (std::int64_t c = 0; c < dim; ++c) row[c] *= inv;
  });
}

ColumnMoments column_moments(std::span<const float> rows, std::int64_t dim, std::span<const std::int64_t> row_ids) {
  LOOM_CHECK(dim > 0 && static_cast<std::int64_t>(rows.size()) % dim == 0, "{} values do not form rows of {}",
             rows.size(), dim);
  const std::int64_t n = static_cast<std::int64_t>(rows.size()) / dim;
  ColumnMoments m{std::vector<double>(dim, 0.0), std::vector<double>(dim, 0.0), static_cast<double>(row_ids.size())};
  for (const std::int64_t r : row_ids) {
    LOOM_CHECK(r >= 0 && r < n, "row {} outside [0, {})", r, n);
    const float* row = rows.data() + r * dim;
    for (std::int64_t c = 0; c < dim; ++c) {
      m.sum[c] += row[c];
      m.sum_squares[c] += static_cast<double>(row[c]) * row[c];
    }
  }
  return m;
}

void standardize_columns(std::span<float> rows, std::int64_t dim, const ColumnMoments& m) {
  LOOM_CHECK(m.count > 0, "standard feature normalisation needs at least one training row");
  LOOM_CHECK(static_cast<std::int64_t>(m.sum.size()) == dim && static_cast<std::int64_t>(m.sum_squares.size()) == dim,
             "moments of {} columns for rows of {}", m.sum.size(), dim);
  std::vector<float> mean(dim), inv_std(dim);
  for (std::int64_t c = 0; c < dim; ++c) {
    const double mu = m.sum[c] / m.count;
    const double var = std::max(0.0, m.sum_squares[c] / m.count - mu * mu);
    mean[c] = static_cast<float>(mu);
    inv_std[c] = var > 1e-12 ? static_cast<float>(1.0 / std::sqrt(var)) : 1.0f;
  }
  const std::int64_t n = static_cast<std::int64_t>(rows.size()) / dim;
  core::parallel_for(n, [&](std::int64_t r) {
    float* row = rows.data() + r * dim;
    for (std::int64_t c = 0; c < dim; ++c) row[c] = (row[c] - mean[c]) * inv_std[c];
  });
}

void normalize_sparse_rows(SparseRows& rows) {
  if (rows.values.empty()) rows.values.assign(rows.indices.size(), 1.0F);
  for (std::size_t r = 0; r + 1 < rows.indptr.size(); ++r) {
    double norm = 0;
    for (std::int64_t e = rows.indptr[r]; e < rows.indptr[r + 1]; ++e) norm += std::fabs(rows.values[e]);
    if (norm == 0) continue;
    const auto inv = static_cast<float>(1.0 / norm);
    for (std::int64_t e = rows.indptr[r]; e < rows.indptr[r + 1]; ++e) rows.values[e] *= inv;
  }
}

void normalize_features(GraphData& data, FeatureNorm norm) {
  if (norm == FeatureNorm::kNone) return;
  LOOM_CHECK_ARG(data.feat_dim > 0, "--normalize-features", "the graph has no features to normalise");
  if (data.sparse_feat) {  // sparse rows: each by its L1 norm; centring would fill them in
    LOOM_CHECK_ARG(norm == FeatureNorm::kRow, "--normalize-features",
                   "standard would make the sparse rows dense (it centres every column); use row, or store the "
                   "rows dense (--feature-layout dense) and standardise them in the model");
    normalize_sparse_rows(*data.sparse_feat);
  } else if (norm == FeatureNorm::kRow) {
    normalize_rows(data.feat, data.feat_dim);
  } else {
    std::vector<std::int64_t> fit_rows;
    if (const auto train = data.splits.find("train"); train != data.splits.end() && !train->second.empty()) {
      fit_rows = train->second;
    } else {
      fit_rows.resize(static_cast<std::size_t>(data.num_rows()));
      std::iota(fit_rows.begin(), fit_rows.end(), 0);
    }
    standardize_columns(data.feat, data.feat_dim, column_moments(data.feat, data.feat_dim, fit_rows));
  }
  data.provenance["feature_normalization"] = core::enum_name(kFeatureNormNames, norm);
}

}  // namespace loom::graph
