#include "loom/train/minibatch/optimizer.hpp"

#include <algorithm>

#include "loom/core/error.hpp"

namespace loom::train {

torch::optim::Adam make_adam(nn::GnnModel& model, double lr, double weight_decay, std::span<const int> decay_layers) {
  const auto options = [&](double decay) { return torch::optim::AdamOptions(lr).weight_decay(decay); };
  if (decay_layers.empty()) return torch::optim::Adam(model.parameters(), options(weight_decay));
  std::vector<torch::Tensor> decayed, plain;
  for (int l = 0; l < model.num_layers(); ++l) {
    const bool decays = std::find(decay_layers.begin(), decay_layers.end(), l) != decay_layers.end();
    for (auto& p : model.layer_parameters(l)) (decays ? decayed : plain).push_back(p);
  }
  for (const int l : decay_layers)
    LOOM_CHECK_ARG(l >= 0 && l < model.num_layers(), "--weight-decay-layers",
                   "layer {} outside the model's layers 0..{}", l, model.num_layers() - 1);
  std::vector<torch::optim::OptimizerParamGroup> groups;
  groups.emplace_back(decayed, std::make_unique<torch::optim::AdamOptions>(options(weight_decay)));
  if (!plain.empty()) groups.emplace_back(plain, std::make_unique<torch::optim::AdamOptions>(options(0.0)));
  return torch::optim::Adam(groups, options(weight_decay));
}

}  // namespace loom::train
