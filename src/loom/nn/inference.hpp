// Exact layer-wise full-neighbourhood inference (as DGL and PyG do for evaluation): computes
// layer 1 for every node of the graph, then layer 2 from those rows, and so on, each layer in
// chunks of destination nodes whose full neighbourhoods form one block. Every node's result is
// exact (no sampling) and independent of the chunk size; GCN uses the whole graph's degrees.
// The model runs in eval mode (no dropout) on its own device and is put back in its former mode;
// results are gathered on the CPU.
#pragma once

#include <cstdint>
#include <functional>
#include <span>

#include <torch/types.h>

#include "loom/graph/csr.hpp"
#include "loom/nn/model.hpp"

namespace loom::nn {

struct InferenceResult {
  torch::Tensor logits;      // [num_nodes, num_classes]
  torch::Tensor embeddings;  // [num_nodes, width] input of the last layer; undefined if 1 layer
};

// input_rows(ids) returns the input features of global ids `ids` as a float32 [ids.size(), in]
// tensor (from a store, a feature source, or an in-memory tensor).
using InputRows = std::function<torch::Tensor(std::span<const std::int64_t>)>;

InferenceResult layerwise_inference(GnnModel& model, const graph::Csr& graph, const InputRows& input_rows,
                                    std::int64_t chunk_size = 8192);

}  // namespace loom::nn
