// One layer's message-flow graph (DGL's "block") and one sampled mini-batch.
// A Block has `num_src` source nodes and `num_dst` destination nodes; the destinations are
// the first `num_dst` sources (local ids 0..num_dst-1 are the same nodes on both sides), so a
// layer can read a destination's own features as x[0:num_dst]. Edges are stored as a CSR over
// destinations: the in-neighbours of destination i are indices[indptr[i] .. indptr[i+1]), local
// source ids. A SampledBatch holds the blocks from the input layer to the output layer: blocks[0]
// reads the rows of `input_nodes`, blocks.back() produces one output row per seed, and
// blocks[l+1].num_src == blocks[l].num_dst. Local ids nest: the nodes of every layer are a
// prefix of input_nodes (layer l's destinations are input_nodes[0 .. blocks[l].num_dst)), and
// the seeds are its first seeds.size() entries.
#pragma once

#include <cstdint>
#include <vector>

namespace loom::sample {

struct Block {
  std::int64_t num_src = 0;
  std::int64_t num_dst = 0;
  std::vector<std::int64_t> indptr;   // num_dst + 1
  std::vector<std::int32_t> indices;  // local source ids in [0, num_src)

  std::int64_t num_edges() const { return static_cast<std::int64_t>(indices.size()); }
};

struct SampledBatch {
  std::vector<std::int64_t> seeds;        // global ids of the output nodes, in the caller's order
  std::vector<std::int64_t> input_nodes;  // global id of each source node of blocks[0], by local id
  std::vector<Block> blocks;              // input layer first; blocks.back().num_dst == seeds.size()
  std::int64_t num_sampled_edges = 0;     // sum of the blocks' edge counts
};

// Checks the invariants above (sizes, monotone indptr, ids in range, layer chaining, seeds being
// the first input nodes of the last layer); throws loom::Error naming the first violation.
void validate(const SampledBatch& batch);

}  // namespace loom::sample
