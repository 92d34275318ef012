// Subsampling follows word2vec.c's formula; negatives follow unigram^0.75.
#include <cmath>

#include <gtest/gtest.h>

#include "loom/embed/sampling.hpp"

namespace loom::embed {
namespace {

TEST(Subsampler, KeepProbabilityIsWord2vecFormula) {
  const std::vector<std::int64_t> counts{1000, 10, 1};
  const double sample = 1e-3, total = 1011;
  const Subsampler sub(counts, sample);
  for (int i = 0; i < 3; ++i) {
    const double c = static_cast<double>(counts[static_cast<std::size_t>(i)]);
    const double p = std::min(1.0, (std::sqrt(c / (sample * total)) + 1) * sample * total / c);
    EXPECT_NEAR(sub.keep_probability(i), p, 1e-9);
  }
  core::Rng rng(5);
  int kept = 0;
  for (int k = 0; k < 100000; ++k) kept += sub.keep(0, rng);
  EXPECT_NEAR(kept / 100000.0, sub.keep_probability(0), 0.01);
  EXPECT_DOUBLE_EQ(Subsampler(counts, 0.0).keep_probability(0), 1.0);
}

TEST(NegativeSampler, DrawsUnigramToThreeQuarters) {
  const std::vector<std::int64_t> counts{100, 40, 10, 1, 0};
  const NegativeSampler neg(counts);
  double norm = 0;
  for (auto c : counts) norm += std::pow(static_cast<double>(c), 0.75);
  std::vector<int> hits(counts.size(), 0);
  core::Rng rng(7);
  const int draws = 400000;
  for (int k = 0; k < draws; ++k) ++hits[static_cast<std::size_t>(neg(rng))];
  for (std::size_t i = 0; i < counts.size(); ++i) {
    const double p = std::pow(static_cast<double>(counts[i]), 0.75) / norm;
    EXPECT_NEAR(neg.probability(static_cast<std::int32_t>(i)), p, 1e-12);
    EXPECT_NEAR(hits[i] / static_cast<double>(draws), p, 0.005) << i;
  }
  EXPECT_EQ(hits[4], 0);
}

}  // namespace
}  // namespace loom::embed
