// Size-constrained label propagation: communities become clusters, no cluster grows past its cap,
// and the result depends only on the graph and the order.
#include "loom/partition/label_clusters.hpp"

#include <algorithm>
#include <numeric>

#include <gtest/gtest.h>

#include "loom/core/error.hpp"
#include "partition/test_graphs.hpp"

namespace loom::partition {
namespace {

graph::Csr two_cliques_csr(std::int64_t size) {
  const auto data = test::two_cliques(size);
  return graph::Csr::from_vectors(data.indptr, data.indices, 2 * size);
}

std::vector<std::int64_t> identity_order(std::int64_t n) {
  std::vector<std::int64_t> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  return order;
}

TEST(LabelClusters, EachCliqueBecomesOneCluster) {
  const auto csr = two_cliques_csr(6);
  const auto clusters = label_clusters(csr, identity_order(12), 6, 10);
  EXPECT_EQ(clusters.count, 2);
  for (std::int64_t v = 2; v < 12; ++v) EXPECT_EQ(clusters.of_node[v], clusters.of_node[v % 2]) << "node " << v;
  EXPECT_NE(clusters.of_node[0], clusters.of_node[1]);
  EXPECT_EQ(clusters.of_node[0], 0) << "numbered in order of first appearance";
  EXPECT_GE(clusters.rounds, 1);
}

TEST(LabelClusters, NoClusterGrowsPastItsCap) {
  const auto csr = two_cliques_csr(8);
  const auto clusters = label_clusters(csr, identity_order(16), 3, 10);
  std::vector<std::int64_t> size(static_cast<std::size_t>(clusters.count), 0);
  for (const auto c : clusters.of_node) ++size[c];
  for (std::int64_t c = 0; c < clusters.count; ++c) EXPECT_LE(size[c], 3) << "cluster " << c;
  EXPECT_GE(clusters.count, 6) << "16 nodes in clusters of at most 3";
  EXPECT_EQ(std::accumulate(size.begin(), size.end(), std::int64_t{0}), 16);
}

TEST(LabelClusters, ZeroRoundsLeaveEveryNodeAloneAndTheResultFollowsTheOrder) {
  const auto csr = two_cliques_csr(5);
  const auto alone = label_clusters(csr, identity_order(10), 10, 0);
  EXPECT_EQ(alone.count, 10);
  auto reversed = identity_order(10);
  std::reverse(reversed.begin(), reversed.end());
  const auto a = label_clusters(csr, reversed, 10, 10);
  EXPECT_EQ(a.of_node, label_clusters(csr, reversed, 10, 10).of_node) << "deterministic";
  EXPECT_THROW(label_clusters(csr, identity_order(9), 10, 1), Error);
}

}  // namespace
}  // namespace loom::partition
