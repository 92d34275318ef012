// Deep full-graph models: shapes, parameter ownership by part, GCNII's initial residual and
// identity mapping against the formula, and learning a planted task at depth 16.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "loom/core/error.hpp"
#include "loom/nn/aggregate.hpp"
#include "loom/nn/deep_model.hpp"

namespace loom::nn {
namespace {

// A ring of n nodes (each linked to both neighbours), as a whole-graph MessageGraph.
MessageGraph ring(std::int64_t n) {
  std::vector<std::int64_t> ptr{0}, idx;
  for (std::int64_t i = 0; i < n; ++i) {
    idx.push_back((i + n - 1) % n);
    idx.push_back((i + 1) % n);
    ptr.push_back(static_cast<std::int64_t>(idx.size()));
  }
  return MessageGraph(torch::tensor(ptr, torch::kLong), torch::tensor(idx, torch::kLong), n);
}

DeepModelOptions options(DeepKind kind, int layers) {
  DeepModelOptions o;
  o.kind = kind;
  o.num_layers = layers;
  o.in_features = 6;
  o.hidden = 12;
  o.num_classes = 3;
  o.dropout = 0;
  return o;
}

TEST(DeepModel, EveryKindMapsThroughItsParts) {
  const auto g = ring(20);
  for (auto kind : {DeepKind::kGcn, DeepKind::kSage, DeepKind::kGcnii, DeepKind::kResGcn}) {
    torch::manual_seed(0);
    DeepGnn model(options(kind, 4));
    auto h0 = model.input(torch::randn({20, 6}));
    ASSERT_EQ(h0.sizes(), (std::vector<std::int64_t>{20, 12}));
    auto h = h0;
    for (int l = 0; l < 4; ++l) h = model.layer(l, g, h, h0);
    const auto logits = model.output(h);
    ASSERT_EQ(logits.sizes(), (std::vector<std::int64_t>{20, 3}));
    logits.sum().backward();
    std::size_t owned = model.input_parameters().size() + model.output_parameters().size();
    for (int l = 0; l < 4; ++l) {
      owned += model.layer_parameters(l).size();
      for (const auto& p : model.layer_parameters(l)) EXPECT_TRUE(p.grad().defined()) << deep_kind_name(kind);
    }
    EXPECT_EQ(owned, model.parameters().size()) << "every parameter belongs to exactly one part";
    EXPECT_EQ(model.uses_initial_residual(), kind == DeepKind::kGcnii);
  }
}

TEST(DeepModel, GcniiLayerFollowsTheFormula) {
  const auto g = ring(10);
  torch::manual_seed(0);
  auto o = options(DeepKind::kGcnii, 3);
  DeepGnn model(o);
  const auto x = torch::randn({10, 12}), h0 = torch::randn({10, 12});
  const int l = 2;
  const double beta = std::log(o.lambda / (l + 1) + 1);
  const auto support = (1 - o.alpha) * aggregate(g, x, Aggregation::kGcn) + o.alpha * h0;
  const auto w = model.layer_parameters(l).front();
  const auto expected = torch::relu((1 - beta) * support + beta * torch::mm(support, w.t()));
  EXPECT_TRUE(torch::allclose(model.layer(l, g, x, h0), expected, 1e-5, 1e-6));
}

TEST(DeepModel, SixteenLayersLearnAPlantedTask) {
  // Label = position parity block on a ring: neighbours share labels, features are noisy.
  const std::int64_t n = 200;
  const auto g = ring(n);
  torch::manual_seed(3);
  const auto labels = torch::arange(n, torch::kLong).div(20, "floor").remainder(3);
  auto features = torch::randn({n, 6});
  features.slice(1, 0, 3) += torch::one_hot(labels, 3).to(torch::kFloat) * 1.5;
  for (auto kind : {DeepKind::kGcnii, DeepKind::kResGcn}) {
    DeepGnn model(options(kind, 16));
    torch::optim::Adam adam(model.parameters(), torch::optim::AdamOptions(0.01));
    double first = 0, last = 0;
    for (int step = 0; step < 60; ++step) {
      adam.zero_grad();
      auto h0 = model.input(features);
      auto h = h0;
      for (int l = 0; l < 16; ++l) h = model.layer(l, g, h, h0);
      auto loss = torch::nn::functional::cross_entropy(model.output(h), labels);
      loss.backward();
      adam.step();
      (step == 0 ? first : last) = loss.item<double>();
    }
    EXPECT_LT(last, 0.5 * first) << deep_kind_name(kind);
  }
}

TEST(DeepModel, BadOptionsNameTheFlag) {
  auto o = options(DeepKind::kGcnii, 0);
  EXPECT_THROW(DeepGnn{o}, Error);
  o = options(DeepKind::kGcnii, 4);
  o.lambda = 0;
  try {
    DeepGnn model(o);
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--gcnii-lambda"), std::string::npos);
  }
  EXPECT_THROW(core::parse_enum(kDeepKindNames, "gat", "--model"), Error);
}

}  // namespace
}  // namespace loom::nn
