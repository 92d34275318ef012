#include "loom/train/fullgraph/layer_costs.hpp"

namespace loom::train {

namespace {

// Multiply-adds of `parameters` applied to `rows` rows: the entries of their matrices (biases,
// vectors, are not products).
double dense_work(const std::vector<torch::Tensor>& parameters, double rows) {
  double entries = 0;
  for (const auto& p : parameters)
    if (p.dim() >= 2) entries += static_cast<double>(p.numel());
  return rows * entries;
}

}  // namespace

std::vector<double> estimate_layer_costs(const nn::DeepGnn& model, const graph::Csr& csr) {
  const auto rows = static_cast<double>(csr.num_rows());
  const auto edges = static_cast<double>(csr.num_edges());
  const auto hidden = static_cast<double>(model.options().hidden);
  std::vector<double> costs(static_cast<std::size_t>(model.num_layers()));
  for (int l = 0; l < model.num_layers(); ++l)
    costs[static_cast<std::size_t>(l)] = dense_work(model.layer_parameters(l), rows) + kGatherCost * edges * hidden;
  if (!model.uses_initial_residual()) costs.front() += dense_work(model.input_parameters(), rows);
  costs.back() += dense_work(model.output_parameters(), rows);
  return costs;
}

}  // namespace loom::train
