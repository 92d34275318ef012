#include "loom/feature/hot_tier.hpp"

#include <gtest/gtest.h>

#include "loom/core/error.hpp"

namespace loom::feature {
namespace {

TEST(HotTier, KeepsTheHottestRowsInSlotOrderAndTiesInRowOrder) {
  const std::vector<double> score{0.1, 0.9, 0.5, 0.9, 0.0};
  const HotTier tier = HotTier::hottest(score, 3);
  ASSERT_EQ(tier.size(), 3);
  EXPECT_EQ(tier.num_rows(), 5);
  EXPECT_EQ(std::vector<std::int64_t>(tier.rows().begin(), tier.rows().end()), (std::vector<std::int64_t>{1, 3, 2}));
  EXPECT_EQ(tier.slot(1), 0);
  EXPECT_EQ(tier.slot(3), 1);
  EXPECT_EQ(tier.slot(2), 2);
  EXPECT_EQ(tier.slot(0), -1);
  EXPECT_EQ(tier.slot(4), -1);
  EXPECT_DOUBLE_EQ(tier.tier_score(), 2.3);
  EXPECT_DOUBLE_EQ(tier.total_score(), 2.4);
}

TEST(HotTier, CapacityBeyondTheRowsKeepsEveryRowAndZeroKeepsNone) {
  const std::vector<double> score{3, 1, 2};
  EXPECT_EQ(HotTier::hottest(score, 10).size(), 3);
  const HotTier none = HotTier::hottest(score, 0);
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(none.slot(0), -1);
  EXPECT_THROW(HotTier::hottest(score, -1), Error);
}

}  // namespace
}  // namespace loom::feature
