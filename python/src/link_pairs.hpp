// A LinkLoader's pairs as PyG gives them: edge_label_index, an int tensor [2, E] of node ids (the
// source store's rows: PyG's node indices for a graph written with from_pyg), and edge_label
// (E values, 1 for an edge and 0 for a non-edge; all 1 when not given). given_pairs() keeps THIS
// rank's share as global ids: the pairs whose first node its part owns. Collective: ids outside
// the graph make every rank raise one error naming the argument.
#pragma once

#include <optional>
#include <string>

#include <torch/types.h>

#include "loom/comm/communicator.hpp"
#include "loom/loader/link_batches.hpp"
#include "loom/loader/training_data.hpp"

namespace loom::python {

loader::LinkPairs given_pairs(const torch::Tensor& edge_label_index, const std::optional<torch::Tensor>& edge_label,
                              const loader::TrainingData& data, const comm::Communicator& world);

}  // namespace loom::python
