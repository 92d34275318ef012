// Feature normalisation: row (L1) and standard (fitted on the training rows), with the edge cases
// (zero rows, constant columns, mixed signs) and the moments adding up across row subsets.
#include "loom/graph/feature_norm.hpp"

#include <gtest/gtest.h>

#include "loom/core/error.hpp"

namespace loom::graph {
namespace {

TEST(FeatureNorm, RowDividesEachRowByItsL1Norm) {
  std::vector<float> rows = {1, 3, 0, 0, 0, 0, -2, 2, 4};
  normalize_rows(rows, 3);
  EXPECT_EQ(rows, (std::vector<float>{0.25f, 0.75f, 0, 0, 0, 0, -0.25f, 0.25f, 0.5f}));
}

TEST(FeatureNorm, StandardUsesTheMomentsOfTheFittedRowsOnly) {
  // Column 0 of rows 0 and 1 (the fitted rows): 1 and 3 -> mean 2, sd 1. Column 1 is constant there.
  std::vector<float> rows = {1, 5, 3, 5, 10, 7};
  const std::vector<std::int64_t> fit = {0, 1};
  standardize_columns(rows, 2, column_moments(rows, 2, fit));
  EXPECT_EQ(rows, (std::vector<float>{-1, 0, 1, 0, 8, 2}));
}

TEST(FeatureNorm, MomentsAddUpOverRowSubsets) {
  const std::vector<float> rows = {1, 2, 3, 4, 5, 6, 7, 8};
  auto a = column_moments(rows, 2, std::vector<std::int64_t>{0, 1});
  const auto b = column_moments(rows, 2, std::vector<std::int64_t>{2, 3});
  const auto all = column_moments(rows, 2, std::vector<std::int64_t>{0, 1, 2, 3});
  for (int c = 0; c < 2; ++c) {
    EXPECT_DOUBLE_EQ(a.sum[c] + b.sum[c], all.sum[c]);
    EXPECT_DOUBLE_EQ(a.sum_squares[c] + b.sum_squares[c], all.sum_squares[c]);
  }
  EXPECT_EQ(a.count + b.count, all.count);
  EXPECT_THROW(column_moments(rows, 2, std::vector<std::int64_t>{4}), Error);
  std::vector<float> some = {1, 2};
  EXPECT_THROW(standardize_columns(some, 2, ColumnMoments{}), Error) << "moments of no row";
}

TEST(FeatureNorm, GraphDataStandardFitsOnTheTrainingSplit) {
  GraphData g;
  g.indptr = {0, 0, 0, 0};
  g.feat = {0, 2, 100};
  g.feat_dim = 1;
  g.splits["train"] = {0, 1};
  normalize_features(g, FeatureNorm::kStandard);
  EXPECT_EQ(g.feat, (std::vector<float>{-1, 1, 99}));
  EXPECT_EQ(g.provenance["feature_normalization"], "standard");
  GraphData none;
  EXPECT_THROW(normalize_features(none, FeatureNorm::kRow), Error);
}

}  // namespace
}  // namespace loom::graph
