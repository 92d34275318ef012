#include "loom/nn/inference.hpp"

#include <numeric>

#include <torch/torch.h>

#include "loom/core/error.hpp"
#include "loom/nn/tensor_util.hpp"
#include "loom/sample/neighbor_sampler.hpp"

namespace loom::nn {

InferenceResult layerwise_inference(GnnModel& model, const graph::Csr& graph, const InputRows& input_rows,
                                    std::int64_t chunk_size) {
  LOOM_CHECK_ARG(chunk_size > 0, "chunk_size", "must be positive, got {}", chunk_size);
  const std::int64_t n = graph.num_rows();
  const auto sampler = sample::NeighborSampler(graph, sample::Fanouts::all_neighbours(1));
  const auto parameters = model.parameters();
  const torch::Device device = parameters.empty() ? torch::Device(torch::kCPU) : parameters.front().device();
  const bool was_training = model.is_training();
  model.eval();
  torch::NoGradGuard no_grad;

  InferenceResult result;
  torch::Tensor previous;  // layer l-1's output for every node (CPU)
  std::vector<std::int64_t> seeds;
  for (int l = 0; l < model.num_layers(); ++l) {
    torch::Tensor current = torch::empty({n, model.layer_out_features(l)}, torch::kFloat);
    for (std::int64_t begin = 0; begin < n; begin += chunk_size) {
      const std::int64_t end = std::min(n, begin + chunk_size);
      seeds.resize(static_cast<std::size_t>(end - begin));
      std::iota(seeds.begin(), seeds.end(), begin);
      const sample::SampledBatch batch = sampler.sample(seeds, /*seed=*/0);
      const MessageGraph block = MessageGraph::from_block(batch.blocks.front())
                                     .with_gcn_norm(global_gcn_norm(graph, batch.input_nodes, seeds))
                                     .to(device);
      torch::Tensor x;
      if (l == 0) {
        x = input_rows(batch.input_nodes);
        LOOM_CHECK(x.dim() == 2 && x.size(0) == static_cast<std::int64_t>(batch.input_nodes.size()),
                   "input_rows returned {} for {} ids", detail::shape_string(x), batch.input_nodes.size());
      } else {
        const auto ids = torch::from_blob(const_cast<std::int64_t*>(batch.input_nodes.data()),
                                          {static_cast<std::int64_t>(batch.input_nodes.size())}, torch::kLong);
        x = previous.index_select(0, ids);
      }
      const torch::Tensor y = model.forward_layer(l, block, x.to(device, torch::kFloat));
      current.slice(0, begin, end).copy_(y);
    }
    if (l + 1 == model.num_layers()) {
      result.embeddings = previous;  // undefined for a 1-layer model
      result.logits = current;
    }
    previous = current;
  }
  model.train(was_training);
  return result;
}

}  // namespace loom::nn
