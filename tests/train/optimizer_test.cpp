// Weight decay on chosen layers: the listed layers' parameters decay, the others do not.
#include "loom/train/minibatch/optimizer.hpp"

#include <gtest/gtest.h>

#include "loom/core/error.hpp"

namespace loom::train {
namespace {

nn::GnnModel two_layer_gcn() {
  return nn::GnnModel({.kind = nn::ModelKind::kGcn, .num_layers = 2, .in_features = 6, .hidden = 4, .num_classes = 3});
}

// One Adam step with zero gradients from non-zero weights: only weight decay moves a parameter.
std::vector<bool> moved_by_decay(nn::GnnModel& model, std::vector<int> layers) {
  auto adam = make_adam(model, 0.1, 0.5, layers);
  std::vector<torch::Tensor> before;
  for (auto& p : model.parameters()) {
    torch::NoGradGuard no_grad;
    p.fill_(1.0);
    p.mutable_grad() = torch::zeros_like(p);
    before.push_back(p.detach().clone());
  }
  adam.step();
  std::vector<bool> moved;
  const auto after = model.parameters();
  for (std::size_t i = 0; i < after.size(); ++i) moved.push_back(!torch::equal(after[i], before[i]));
  return moved;
}

TEST(Optimizer, WeightDecayOnlyOnTheListedLayers) {
  torch::manual_seed(1);
  auto model = two_layer_gcn();
  const auto first = model.layer_parameters(0).size();
  const auto moved = moved_by_decay(model, {0});
  for (std::size_t i = 0; i < moved.size(); ++i) EXPECT_EQ(moved[i], i < first) << "parameter " << i;
  EXPECT_EQ(make_adam(model, 0.1, 0.5, std::vector<int>{0}).param_groups().size(), 2u);
}

TEST(Optimizer, WeightDecayOnEveryLayerByDefault) {
  torch::manual_seed(1);
  auto model = two_layer_gcn();
  for (const bool moved : moved_by_decay(model, {})) EXPECT_TRUE(moved);
  EXPECT_EQ(make_adam(model, 0.1, 0.5, std::vector<int>{0, 1}).param_groups().size(), 1u);  // nothing left undecayed
}

TEST(Optimizer, UnknownLayerIsAnArgumentError) {
  auto model = two_layer_gcn();
  try {
    make_adam(model, 0.1, 0.5, std::vector<int>{2});
    FAIL() << "layer 2 accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.argument(), "--weight-decay-layers");
  }
}

}  // namespace
}  // namespace loom::train
