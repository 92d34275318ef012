// Link prediction's target-edge removal: drop_pair_edges() removes from a sampled batch's blocks
// every message edge between the two endpoints of a given node pair, in either direction, so that
// a model scoring the pair (u, v) cannot read the edge it is asked to predict (PyG's
// LinkNeighborLoader with the supervision edges kept out of message passing). Nodes reached only
// through a removed edge stay in the batch's input nodes, without edges.
#pragma once

#include <cstdint>
#include <span>

#include "loom/sample/block.hpp"

namespace loom::sample {

// `pairs` holds (u, v) global ids, flattened: u0, v0, u1, v1, ...
void drop_pair_edges(SampledBatch& batch, std::span<const std::int64_t> pairs);

}  // namespace loom::sample
