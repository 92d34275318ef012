// Per-layer cost profile for balancing pipeline stages: times one forward and backward of every
// layer of `model` on a sample of the graph (the first `sample_rows` rows of `rows` with all
// their neighbours), adding the input part to layer 0 (unless every layer reads h0, so every
// stage pays it) and the output part to the last layer. Seconds per layer, measured locally.
// The hidden layers of one model have the same shape and work, so each is given the median of
// their timings: a busy moment during one layer's timing cannot move the stage split (which a
// resumed run or another rank count must reproduce).
#pragma once

#include <cstdint>
#include <vector>

#include "loom/graph/csr.hpp"
#include "loom/nn/deep_model.hpp"
#include "loom/partition/partition_book.hpp"

namespace loom::train {

std::vector<double> profile_layer_costs(nn::DeepGnn& model, const graph::Csr& csr, partition::IdRange rows,
                                        std::int64_t sample_rows = 2048);

}  // namespace loom::train
