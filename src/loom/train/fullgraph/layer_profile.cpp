#include "loom/train/fullgraph/layer_profile.hpp"

#include <algorithm>

#include <torch/torch.h>

#include "loom/core/timer.hpp"
#include "loom/sample/neighbor_sampler.hpp"
#include "loom/train/device.hpp"

namespace loom::train {

namespace {

// Seconds of the faster of two runs of f on `device` (the first warms caches and allocators).
template <class F>
double best_of_two(torch::Device device, F&& f) {
  double best = 1e30;
  for (int run = 0; run < 2; ++run) {
    synchronize(device);
    core::Timer t;
    f();
    synchronize(device);
    best = std::min(best, t.seconds());
  }
  return best;
}

}  // namespace

std::vector<double> profile_layer_costs(nn::DeepGnn& model, const graph::Csr& csr, partition::IdRange rows,
                                        std::int64_t sample_rows) {
  const std::int64_t n = std::min(rows.size(), sample_rows);
  std::vector<std::int64_t> dst(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) dst[static_cast<std::size_t>(i)] = rows.begin + i;
  const auto block = sample::NeighborSampler::full_neighborhood(csr, 1).sample(dst, 0);
  const auto parameters = model.parameters();
  const torch::Device device = parameters.empty() ? torch::Device(torch::kCPU) : parameters.front().device();
  const auto graph = nn::MessageGraph::from_block(block.blocks.front())
                         .with_gcn_norm(nn::global_gcn_norm(csr, block.input_nodes, dst))
                         .to(device);
  const auto& o = model.options();
  const auto on_device = torch::TensorOptions().device(device);
  const auto x = torch::randn({graph.num_src(), o.hidden}, on_device).requires_grad_();
  const auto h0 = torch::randn({n, o.hidden}, on_device).requires_grad_();
  const auto features = torch::randn({n, o.in_features}, on_device);
  std::vector<double> costs(static_cast<std::size_t>(model.num_layers()));
  for (int l = 0; l < model.num_layers(); ++l)
    costs[static_cast<std::size_t>(l)] = best_of_two(device, [&] { model.layer(l, graph, x, h0).sum().backward(); });
  std::vector<double> sorted = costs;
  std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(sorted.size() / 2), sorted.end());
  std::fill(costs.begin(), costs.end(), sorted[sorted.size() / 2]);
  if (!model.uses_initial_residual())
    costs.front() += best_of_two(device, [&] { model.input(features).sum().backward(); });
  costs.back() += best_of_two(device, [&] { model.output(h0).sum().backward(); });
  model.zero_grad();
  return costs;
}

}  // namespace loom::train
