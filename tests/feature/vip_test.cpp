// VIP analysis: exact on a graph small enough to work by hand, and close to the inclusion
// frequencies measured by sampling many epochs with the trainer's own batches.
#include <algorithm>
#include <cmath>
#include <numeric>

#include <gtest/gtest.h>

#include "loom/feature/inclusion_counts.hpp"
#include "loom/feature/vip.hpp"
#include "loom/graph/generate/sbm.hpp"
#include "loom/sample/epoch_plan.hpp"

namespace loom::feature {
namespace {

// A star: centre 0, leaves 1..4.
graph::Csr star() { return graph::Csr::from_vectors({0, 4, 5, 6, 7, 8}, {1, 2, 3, 4, 0, 0, 0, 0}, 5); }

TEST(Vip, MatchesHandComputedProbabilitiesOnAStar) {
  const auto g = star();
  const std::vector<std::int64_t> train = {1};
  const std::vector<std::int32_t> fanouts = {1, 2};
  const auto vip = vip_probabilities(g, train, /*batch_size=*/1, fanouts);
  // Hop 1: leaf 1 (always the seed) takes its only neighbour, the centre.
  EXPECT_NEAR(vip[0], 1.0, 1e-12);
  // Hop 2: the centre takes 2 of its 4 leaves: each leaf with probability 1/2.
  for (int leaf = 1; leaf <= 4; ++leaf) EXPECT_NEAR(vip[leaf], 0.5, 1e-12) << "leaf " << leaf;
}

TEST(Vip, HalfChanceSeedsHalveTheFirstHop) {
  const auto g = star();
  const std::vector<std::int64_t> train = {1, 2};
  const std::vector<std::int32_t> fanouts = {1};
  const auto vip = vip_probabilities(g, train, /*batch_size=*/1, fanouts);
  // Each leaf is a seed with probability 1/2; the centre is missed only when neither is.
  EXPECT_NEAR(vip[0], 0.75, 1e-12);
  EXPECT_EQ(vip[3], 0.0);
}

TEST(Vip, LogMissKeepsTheOrderOfCertainVertices) {
  const auto g = star();
  const std::vector<std::int64_t> train = {1, 2, 3, 4};
  const std::vector<std::int32_t> fanouts = {-1};
  const auto log_miss = vip_log_miss(g, train, /*batch_size=*/4, fanouts);
  EXPECT_TRUE(std::isinf(log_miss[0]));  // every batch includes the centre
  EXPECT_EQ(log_miss[1], 0.0);           // a leaf is only reachable through the centre at hop 2
}

// Spearman rank correlation.
double rank_correlation(const std::vector<double>& a, const std::vector<double>& b) {
  const auto ranks = [](const std::vector<double>& x) {
    std::vector<std::size_t> order(x.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](std::size_t i, std::size_t j) { return x[i] < x[j]; });
    std::vector<double> r(x.size());
    for (std::size_t i = 0; i < order.size();) {  // average ranks over ties
      std::size_t j = i;
      while (j < order.size() && x[order[j]] == x[order[i]]) ++j;
      for (std::size_t k = i; k < j; ++k) r[order[k]] = (i + j - 1) / 2.0;
      i = j;
    }
    return r;
  };
  const auto ra = ranks(a), rb = ranks(b);
  const double n = static_cast<double>(a.size()), mean = (n - 1) / 2;
  double cov = 0, va = 0, vb = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    cov += (ra[i] - mean) * (rb[i] - mean);
    va += (ra[i] - mean) * (ra[i] - mean);
    vb += (rb[i] - mean) * (rb[i] - mean);
  }
  return cov / std::sqrt(va * vb);
}

TEST(Vip, AgreesWithMeasuredInclusionFrequencies) {
  graph::generate::SbmOptions o;
  o.nodes = 3000;
  o.classes = 4;
  o.avg_degree = 8;
  o.degree_skew = 2.5;
  o.feat_dim = 1;
  o.train = 0.1;
  o.valid = 0.1;
  o.seed = 3;
  auto data = graph::generate::generate_sbm(o);
  const auto g = graph::Csr::from_vectors(data.indptr, data.indices, o.nodes);
  const auto& train = data.splits.at("train");
  const std::int64_t batch = 30;
  const sample::Fanouts fanouts{4, 3};
  const sample::NeighborSampler sampler(g, fanouts);
  const std::int64_t steps = sample::steps_per_epoch(std::array{static_cast<std::int64_t>(train.size())}, batch);
  const int epochs = 150;
  const auto counts = count_inclusions(sampler, train, steps, batch, 0, {7, 0, epochs});
  const auto vip = vip_probabilities(g, train, batch, fanouts);

  std::vector<bool> is_train(o.nodes, false);
  for (auto t : train) is_train[t] = true;
  std::vector<double> predicted, measured;
  double abs_error = 0;
  for (std::int64_t v = 0; v < o.nodes; ++v) {
    if (is_train[v]) continue;  // seeds are counted as inputs too; VIP covers the sampled hops
    predicted.push_back(vip[v]);
    measured.push_back(static_cast<double>(counts[v]) / static_cast<double>(epochs * steps));
    abs_error += std::abs(predicted.back() - measured.back());
  }
  abs_error /= static_cast<double>(predicted.size());
  EXPECT_GT(rank_correlation(predicted, measured), 0.97);
  EXPECT_LT(abs_error, 0.02);
}

}  // namespace
}  // namespace loom::feature
