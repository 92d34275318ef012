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

}  // namespace
}  // namespace loom::graph::generate
