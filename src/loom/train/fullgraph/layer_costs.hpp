// Per-layer costs for balancing pipeline stages, counted, not timed: each hidden layer costs its
// dense work (rows x the entries of its weight matrices, a multiply-add each) plus its aggregation
// (edges x hidden gathered values, each weighted kGatherCost multiply-adds: a gather runs at
// memory speed, a dense product at arithmetic speed); the input part (unless every layer reads h0,
// so every stage pays it) is added to layer 0 and the output part to the last layer. Counting
// makes the stage split a function of the model and the graph alone: a timed profile moved with
// whatever else the host was doing, so two runs with one seed could split (and so round) their
// layers differently, and a resumed run differ from an uninterrupted one.
#pragma once

#include <vector>

#include "loom/graph/csr.hpp"
#include "loom/nn/deep_model.hpp"

namespace loom::train {

inline constexpr double kGatherCost = 8.0;

std::vector<double> estimate_layer_costs(const nn::DeepGnn& model, const graph::Csr& csr);

}  // namespace loom::train
