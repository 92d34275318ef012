// OGB's link-prediction metrics (AUC, Hits@K, MRR) on a hand-computed case, and over the ranks of a
// world of one (the multi-rank sum: tests/mpi).
#include "loom/scores/link_metrics.hpp"

#include <cmath>

#include <gtest/gtest.h>

#include "support/single_rank_world.hpp"

namespace loom::scores {
namespace {

TEST(LinkMetrics, AucHitsAndMrrOnAHandComputedCase) {
  const std::vector<float> positive{0.9F, 0.5F, 0.1F};
  const std::vector<float> negative{0.8F, 0.5F, 0.2F, 0.0F};
  const std::vector<int> ks{1, 2, 10};
  const LinkMetrics m = link_metrics(positive, negative, ks);
  // Wins: 0.9 beats 4; 0.5 beats 2 and ties 1; 0.1 beats 1 -> (4 + 2.5 + 1) / 12.
  EXPECT_DOUBLE_EQ(m.auc, 7.5 / 12.0);
  // Negatives above each positive: none, 0.8, and 0.8 0.5 0.2 -> ranks 1, 2, 4.
  EXPECT_DOUBLE_EQ(m.mrr, (1.0 + 0.5 + 0.25) / 3.0);
  EXPECT_DOUBLE_EQ(m.hits.at(1), 1.0 / 3.0);  // above 0.8: 0.9
  EXPECT_DOUBLE_EQ(m.hits.at(2), 1.0 / 3.0);  // above 0.5: 0.9 (0.5 is not above)
  EXPECT_DOUBLE_EQ(m.hits.at(10), 1.0);       // fewer negatives than K
  EXPECT_EQ(m.positives, 3);
  EXPECT_EQ(m.negatives, 4);
  EXPECT_TRUE(std::isnan(link_metrics(positive, {}, ks).auc));
  EXPECT_EQ(hits_name(50), "hits@50");
}

TEST(LinkMetrics, SumOverTheRanksOfAWorldOfOne) {
  const std::vector<float> positive{1.0F}, negative{0.0F};
  const std::vector<int> ks{1};
  EXPECT_DOUBLE_EQ(link_metrics(positive, negative, ks, testing::single_rank_world()).auc, 1.0);
}

}  // namespace
}  // namespace loom::scores
