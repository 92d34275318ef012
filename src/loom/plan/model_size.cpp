// parameter_sizes (step_costs.hpp): the one part of a plan that builds a LibTorch model.
#include "loom/plan/step_costs.hpp"

namespace loom::plan {

std::vector<std::int64_t> parameter_sizes(const nn::ModelOptions& options) {
  nn::GnnModel model(options);
  std::vector<std::int64_t> sizes;
  for (const auto& p : model.parameters()) sizes.push_back(p.numel());
  return sizes;
}

}  // namespace loom::plan
