// Gradient combiners: sum and average, and gc adding only the part of a second update that is
// orthogonal to the first, combined in a fixed tree over rank order.
#include <gtest/gtest.h>

#include "loom/core/error.hpp"
#include "loom/embed/combiner.hpp"

namespace loom::embed {
namespace {

std::vector<float> combine(Combiner c, const std::vector<std::vector<float>>& updates) {
  std::vector<const float*> ptrs;
  for (const auto& u : updates) ptrs.push_back(u.data());
  std::vector<float> out(updates[0].size());
  combine_updates(c, ptrs, static_cast<std::int64_t>(out.size()), out.data());
  return out;
}

TEST(Combiner, SumAndAverage) {
  const std::vector<std::vector<float>> u = {{1, 2}, {3, 4}, {5, 6}};
  EXPECT_EQ(combine(Combiner::kSum, u), (std::vector<float>{9, 12}));
  EXPECT_EQ(combine(Combiner::kAverage, u), (std::vector<float>{3, 4}));
}

TEST(Combiner, GcAddsOnlyTheOrthogonalPart) {
  // A second update parallel to the first adds nothing; an orthogonal one is added in full.
  EXPECT_EQ(combine(Combiner::kGc, {{2, 0}, {3, 0}}), (std::vector<float>{2, 0}));
  EXPECT_EQ(combine(Combiner::kGc, {{2, 0}, {0, 5}}), (std::vector<float>{2, 5}));
  // g1 + g2 - (g1.g2 / |g1|^2) g1 with g1 = (1, 1), g2 = (2, 0): (1,1) + (2,0) - 1 * (1,1) = (2, 0).
  EXPECT_EQ(combine(Combiner::kGc, {{1, 1}, {2, 0}}), (std::vector<float>{2, 0}));
  // A zero first update: the second is taken whole.
  EXPECT_EQ(combine(Combiner::kGc, {{0, 0}, {1, 2}}), (std::vector<float>{1, 2}));
}

TEST(Combiner, GcCombinesPairsInRankOrder) {
  // ((g0 g1) (g2 g3)): (1,0)+(0,1) = (1,1); (1,0)+(1,0) -> (1,0); then (1,1) with (1,0): (1,0)-(0.5,0.5) + (1,1) =
  // (1.5, 0.5).
  EXPECT_EQ(combine(Combiner::kGc, {{1, 0}, {0, 1}, {1, 0}, {1, 0}}), (std::vector<float>{1.5f, 0.5f}));
}

TEST(Combiner, UnknownNameNamesTheArgument) {
  EXPECT_THROW(core::parse_enum(kCombinerNames, "median", "--combiner"), Error);
  EXPECT_EQ(core::parse_enum(kCombinerNames, "gc", "--combiner"), Combiner::kGc);
}

}  // namespace
}  // namespace loom::embed
