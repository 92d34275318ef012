// Target-edge removal: every message edge between the two nodes of a dropped pair goes, in both
// directions and in every block; other edges and the input nodes stay.
#include "loom/sample/dropped_pairs.hpp"

#include <gtest/gtest.h>

#include "loom/graph/csr.hpp"
#include "loom/sample/neighbor_sampler.hpp"

namespace loom::sample {
namespace {

// A 5-cycle with every neighbour sampled: 0-1-2-3-4-0.
graph::Csr ring() { return graph::Csr::from_vectors({0, 2, 4, 6, 8, 10}, {1, 4, 0, 2, 1, 3, 2, 4, 3, 0}, 5); }

bool has_edge(const SampledBatch& b, std::int64_t a, std::int64_t c) {
  for (const Block& block : b.blocks)
    for (std::int64_t d = 0; d < block.num_dst; ++d)
      for (std::int64_t e = block.indptr[d]; e < block.indptr[d + 1]; ++e) {
        const std::int64_t u = b.input_nodes[d], v = b.input_nodes[block.indices[e]];
        if ((u == a && v == c) || (u == c && v == a)) return true;
      }
  return false;
}

TEST(DroppedPairs, RemoveBothDirectionsInEveryBlockAndNothingElse) {
  const graph::Csr g = ring();
  const NeighborSampler sampler(g, {-1, -1});
  const std::vector<std::int64_t> seeds{0, 1};
  SampledBatch batch = sampler.sample(seeds, 7);
  const std::int64_t edges = batch.num_sampled_edges;
  ASSERT_TRUE(has_edge(batch, 0, 1));
  ASSERT_TRUE(has_edge(batch, 1, 2));
  const std::vector<std::int64_t> pairs{1, 0};
  drop_pair_edges(batch, pairs);
  EXPECT_FALSE(has_edge(batch, 0, 1));
  EXPECT_TRUE(has_edge(batch, 1, 2));
  EXPECT_TRUE(has_edge(batch, 0, 4));
  EXPECT_LT(batch.num_sampled_edges, edges);
  EXPECT_NO_THROW(validate(batch));
  std::int64_t counted = 0;
  for (const Block& block : batch.blocks) counted += block.num_edges();
  EXPECT_EQ(counted, batch.num_sampled_edges);
}

TEST(DroppedPairs, NoPairsLeaveTheBatchAsItIs) {
  const graph::Csr g = ring();
  const NeighborSampler sampler(g, {-1});
  const std::vector<std::int64_t> seeds{2};
  SampledBatch batch = sampler.sample(seeds, 1);
  const auto before = batch.blocks[0].indices;
  drop_pair_edges(batch, {});
  EXPECT_EQ(batch.blocks[0].indices, before);
}

}  // namespace
}  // namespace loom::sample
