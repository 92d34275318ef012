// A Loader's node sets as a PyG user gives them (input_nodes=): a split name ("train", "valid",
// "test"), a boolean mask over the graph's nodes, the nodes' original ids (an int tensor: the ids
// batch.original_ids gives back, i.e. PyG's node indices for a graph imported with from_pyg), or
// their names where the graph names its nodes. resolve_nodes() turns one into THIS rank's share
// as global ids (the nodes its part owns; in the order given, or ascending for a shuffled
// training set). Collective: every rank passes the same set; ids that are no node of the graph
// make every rank raise one error naming how many and the first.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include <torch/types.h>

#include "loom/comm/communicator.hpp"
#include "loom/sample/epoch_plan.hpp"
#include "loom/loader/training_data.hpp"

namespace loom::python {

using NodeSet = std::variant<std::string, torch::Tensor, std::vector<std::string>>;

// `argument` names the keyword in errors.
std::vector<std::int64_t> resolve_nodes(const NodeSet& nodes, const loader::TrainingData& data,
                                        const comm::Communicator& world, sample::SeedOrder order,
                                        const std::string& argument);

}  // namespace loom::python
