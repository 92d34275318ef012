#include "loom/graph/generate/splits.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "loom/core/error.hpp"

namespace loom::graph::generate {
namespace {

TEST(Splits, PiecesAreSortedDisjointAndCoverThePool) {
  std::vector<std::int64_t> pool(100);
  std::iota(pool.begin(), pool.end(), 0);
  const auto s = random_splits(pool, {{"train", 30}, {"valid", 10}}, "test", core::Rng(1));
  ASSERT_EQ(s.at("train").size(), 30u);
  ASSERT_EQ(s.at("valid").size(), 10u);
  ASSERT_EQ(s.at("test").size(), 60u);
  std::vector<std::int64_t> all;
  for (const auto& [name, ids] : s) {
    EXPECT_TRUE(std::is_sorted(ids.begin(), ids.end())) << name;
    all.insert(all.end(), ids.begin(), ids.end());
  }
  std::sort(all.begin(), all.end());
  EXPECT_EQ(all, pool);
  EXPECT_EQ(random_splits(pool, {{"train", 30}, {"valid", 10}}, "test", core::Rng(1)), s);
  EXPECT_NE(random_splits(pool, {{"train", 30}, {"valid", 10}}, "test", core::Rng(2)).at("train"), s.at("train"));
}

TEST(Splits, FractionSizesRoundAndNeverExceedTheNodes) {
  const auto sizes = fraction_sizes(3, 0.5, 0.5);
  EXPECT_EQ(sizes[0].second + sizes[1].second, 3);
  EXPECT_EQ(fraction_sizes(1000, 0.08, 0.016)[1].second, 16);
  EXPECT_THROW(fraction_sizes(10, 1.5, 0), Error);
  EXPECT_THROW(fraction_sizes(10, 0.7, 0.4), Error);
}

TEST(Splits, LabelledRandomSplitsUseOnlyLabelledRows) {
  GraphData data;
  data.indptr.assign(11, 0);
  data.num_classes = 3;
  data.multi_label.assign(30, 0);
  for (int v = 0; v < 10; v += 2) data.multi_label[v * 3 + v % 3] = 1;  // rows 0, 2, 4, 6, 8 labelled
  const auto s = labelled_random_splits(data, 0.6, 0.2, 7);
  EXPECT_EQ(s.at("train").size(), 3u);
  EXPECT_EQ(s.at("valid").size(), 1u);
  EXPECT_EQ(s.at("test").size(), 1u);
  for (const auto& [name, ids] : s)
    for (auto v : ids) EXPECT_EQ(v % 2, 0) << name << " holds unlabelled row " << v;
  EXPECT_EQ(labelled_random_splits(data, 0.6, 0.2, 7), s);

  data.multi_label.clear();
  data.label = {0, -1, 1, -1, 2, 0, -1, 1, 2, 0};  // 7 labelled single-label rows
  const auto single = labelled_random_splits(data, 0.5, 0.0, 1);
  EXPECT_EQ(single.at("train").size() + single.at("valid").size() + single.at("test").size(), 7u);
  for (const auto& [name, ids] : single)
    for (auto v : ids) EXPECT_GE(data.label[static_cast<std::size_t>(v)], 0) << name;
}

}  // namespace
}  // namespace loom::graph::generate
