// The Adam optimizer of mini-batch training: over every parameter of the model, with L2 weight
// decay on all layers or only on the layers listed (0 = the input layer; GCN's recipe decays its
// first layer only, as PyG's example and Kipf & Welling's code do). Layers not listed get their
// own parameter group with no decay, so learning-rate schedules and checkpoints see every group.
#pragma once

#include <span>

#include <torch/torch.h>

#include "loom/nn/model.hpp"

namespace loom::train {

// `decay_layers` empty = every layer; entries must be layers of the model.
torch::optim::Adam make_adam(nn::GnnModel& model, double lr, double weight_decay, std::span<const int> decay_layers);

}  // namespace loom::train
