// Size-constrained label propagation (Meyerhenke, Sanders and Schulz, "Partitioning complex
// networks via size-constrained clustering", SEA 2014): the clustering that the streaming
// partitioner places as whole groups. Every node starts in its own cluster; in each round the
// nodes, in the given order, join the cluster most of their neighbours are in (staying on ties,
// else the first seen) unless that cluster already holds max_size nodes. Rounds stop after
// max_rounds or once fewer than one node in a thousand moves. The order is taken in blocks
// (n/256 nodes, at most 8192): a block's nodes choose in parallel against the clusters as the
// block began, then move in order where there is still room; so the result depends on the graph
// and the order only, not on the thread count. Memory O(nodes): a cluster id and a cluster size
// per node, and a table the size of one node's degree per thread. Returns cluster ids numbered
// 0..clusters-1 in order of first appearance among the node ids. `progress`, where given, counts
// the nodes visited (a round visits every node).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "loom/core/progress.hpp"
#include "loom/graph/csr.hpp"

namespace loom::partition {

struct Clusters {
  std::vector<std::int64_t> of_node;  // cluster id per node
  std::int64_t count = 0;             // number of clusters
  int rounds = 0;                     // rounds run
};

// Nodes of a stream taken against the same state (label propagation here, restreaming in the
// stream partitioner): n/256, at least 1 and at most 8192; a function of n alone, so that results
// do not depend on the thread count.
std::int64_t stream_block_size(std::int64_t n);

Clusters label_clusters(const graph::Csr& csr, std::span<const std::int64_t> order, std::int64_t max_size,
                        int max_rounds, core::ProgressBar* progress = nullptr);

}  // namespace loom::partition
