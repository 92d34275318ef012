// Layers, the model and layer-wise inference: layers against hand-written dense formulas, the model
// on sampled batches (shapes, gradients, learning a planted task), and exact inference against a
// whole-graph forward pass.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "loom/core/error.hpp"
#include "loom/core/rng.hpp"
#include "loom/graph/build_csr.hpp"
#include "loom/nn/aggregate.hpp"
#include "loom/nn/inference.hpp"
#include "loom/nn/model.hpp"
#include "loom/nn/relu_dropout.hpp"
#include "loom/sample/neighbor_sampler.hpp"

namespace loom::nn {
namespace {

// Two planted communities: dense inside, sparse across; label = community.
struct Planted {
  graph::Csr csr;
  torch::Tensor features, labels;
};

Planted planted(std::int64_t n, std::int64_t features, std::uint64_t seed) {
  core::Rng rng(seed);
  graph::EdgeList list;
  list.num_nodes = n;
  for (std::int64_t e = 0; e < n * 6; ++e) {
    const auto u = static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(n)));
    auto v = static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(n / 2))) * 2 + u % 2;  // same class
    if (e % 10 == 0) v = static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(n)));      // noise edge
    list.src.push_back(u);
    list.dst.push_back(v);
  }
  auto built = graph::build_csr(list, graph::CsrBuildOptions{});
  Planted p{graph::Csr::from_vectors(std::move(built.indptr), built.indices, n), {}, {}};
  torch::manual_seed(static_cast<std::uint64_t>(seed));
  p.labels = torch::arange(n, torch::kLong) % 2;
  // Weak signal per node, strong after averaging over neighbours.
  p.features = torch::randn({n, features}) * 2.0;
  p.features.select(1, 0).add_(p.labels.to(torch::kFloat) * 1.0 - 0.5);
  return p;
}

// Model options; `heads` applies to GAT only (the other models reject it).
ModelOptions options(ModelKind kind, int layers, std::int64_t in, std::int64_t hidden, std::int64_t classes,
                     double dropout, std::int64_t heads) {
  return {.kind = kind,
          .num_layers = layers,
          .in_features = in,
          .hidden = hidden,
          .num_classes = classes,
          .dropout = dropout,
          .heads = kind == ModelKind::kGat ? heads : 0};
}

torch::Tensor dense_mean(const MessageGraph& g, const torch::Tensor& x) {
  auto a = torch::zeros({g.num_dst(), g.num_src()});
  const auto ptr = g.indptr();
  const auto idx = g.indices().to(torch::kLong);
  for (std::int64_t i = 0; i < g.num_dst(); ++i) {
    for (std::int64_t e = ptr[i].item<std::int64_t>(); e < ptr[i + 1].item<std::int64_t>(); ++e) {
      a[i][idx[e].item<std::int64_t>()] = 1.0;
    }
  }
  return (a / a.sum(1, true).clamp_min(1)).mm(x);
}

TEST(SageConv, MatchesTheDenseFormulaWhicheverSideItTransforms) {
  const auto p = planted(80, 4, 1);
  const auto sampler = sample::NeighborSampler(p.csr, {5});
  const std::vector<std::int64_t> seeds = {0, 3, 5, 8, 13, 21, 34, 55};
  const auto batch = sampler.sample(seeds, 1);
  const auto g = MessageGraph::from_block(batch.blocks[0]);
  for (const auto& [in, out] : {std::pair<int, int>{4, 32}, std::pair<int, int>{64, 2}}) {
    torch::manual_seed(2);
    SageConv conv(in, out);
    const auto x = torch::randn({g.num_src(), in});
    const auto params = conv.named_parameters();
    const auto want = dense_mean(g, x).mm(params["weight_l"].t()) + params["bias"] +
                      x.slice(0, 0, g.num_dst()).mm(params["weight_r"].t());
    const auto got = conv.forward(g, x);
    EXPECT_LE((got - want).abs().max().item<double>(), 1e-5) << in << " -> " << out;
  }
}

class ModelKinds : public ::testing::TestWithParam<ModelKind> {};

TEST_P(ModelKinds, SampledForwardGivesOneRowPerSeedAndGradientsForEveryParameter) {
  const auto p = planted(300, 8, 3);
  const auto sampler = sample::NeighborSampler(p.csr, {5, 4});
  const std::vector<std::int64_t> seeds = {1, 2, 3, 50, 77, 100};
  const auto batch = sampler.sample(seeds, 5);
  std::vector<MessageGraph> blocks;
  for (const auto& b : batch.blocks) blocks.push_back(MessageGraph::from_block(b));
  torch::manual_seed(0);
  GnnModel model(options(GetParam(), /*layers=*/2, /*in=*/8, /*hidden=*/16, /*classes=*/3, 0.5, /*heads=*/4));
  const auto ids = torch::tensor(batch.input_nodes, torch::kLong);
  const auto logits = model.forward(p.features.index_select(0, ids), blocks);
  EXPECT_EQ(logits.sizes(), (std::vector<std::int64_t>{6, 3}));
  logits.logsumexp(1).sum().backward();
  for (const auto& param : model.named_parameters()) {
    ASSERT_TRUE(param.value().grad().defined()) << param.key();
    EXPECT_GT(param.value().grad().abs().sum().item<double>(), 0) << param.key();
  }
}

TEST_P(ModelKinds, LearnsAPlantedCommunityTask) {
  const auto p = planted(400, 8, 4);
  const auto sampler = sample::NeighborSampler(p.csr, {10, 10});
  torch::manual_seed(1);
  GnnModel model(options(GetParam(), 2, 8, 32, 2, 0.1, 4));
  torch::optim::Adam opt(model.parameters(), torch::optim::AdamOptions(0.01));
  std::vector<std::int64_t> train(200), test(200);
  std::iota(train.begin(), train.end(), 0);
  std::iota(test.begin(), test.end(), 200);
  auto run = [&](const std::vector<std::int64_t>& seeds, std::uint64_t seed) {
    const auto batch = sampler.sample(seeds, seed);
    std::vector<MessageGraph> blocks;
    for (const auto& b : batch.blocks) blocks.push_back(MessageGraph::from_block(b));
    return model.forward(p.features.index_select(0, torch::tensor(batch.input_nodes, torch::kLong)), blocks);
  };
  for (int step = 0; step < 60; ++step) {
    opt.zero_grad();
    const auto loss = torch::cross_entropy_loss(run(train, step), p.labels.slice(0, 0, 200));
    loss.backward();
    opt.step();
  }
  model.eval();
  torch::NoGradGuard no_grad;
  const double accuracy =
      run(test, 999).argmax(1).eq(p.labels.slice(0, 200, 400)).to(torch::kFloat).mean().item<double>();
  EXPECT_GE(accuracy, 0.9);
}

TEST_P(ModelKinds, LayerwiseInferenceEqualsAWholeGraphForwardAtAnyChunkSize) {
  const auto p = planted(150, 6, 5);
  torch::manual_seed(2);
  GnnModel model(options(GetParam(), 3, 6, 8, 3, 0.5, 2));
  model.train();
  const auto whole = MessageGraph::from_csr(p.csr);
  torch::Tensor want;
  {
    model.eval();
    torch::NoGradGuard no_grad;
    want = model.forward(p.features, {whole, whole, whole});
    model.train();
  }
  const InputRows rows = [&](std::span<const std::int64_t> ids) {
    return p.features.index_select(0, torch::tensor(std::vector<std::int64_t>(ids.begin(), ids.end()), torch::kLong));
  };
  for (const std::int64_t chunk : {7, 1000}) {
    const auto result = layerwise_inference(model, p.csr, rows, chunk);
    EXPECT_LE((result.logits - want).abs().max().item<double>(), 1e-5) << "chunk " << chunk;
    EXPECT_EQ(result.embeddings.sizes(), (std::vector<std::int64_t>{150, 8}));
  }
  EXPECT_TRUE(model.is_training());  // mode restored
}

INSTANTIATE_TEST_SUITE_P(Kinds, ModelKinds, ::testing::Values(ModelKind::kSage, ModelKind::kGcn, ModelKind::kGat),
                         [](const auto& info) { return model_kind_name(info.param); });

TEST(GnnModel, FullNeighbourhoodSampledBatchMatchesLayerwiseInference) {
  const auto p = planted(200, 5, 6);
  torch::manual_seed(3);
  GnnModel model(options(ModelKind::kSage, 2, 5, 8, 2, 0.5, 0));
  const std::vector<std::int64_t> seeds = {4, 9, 150, 199};
  const auto batch = sample::NeighborSampler(p.csr, sample::Fanouts::all_neighbours(2)).sample(seeds, 0);
  std::vector<MessageGraph> blocks;
  for (const auto& b : batch.blocks) blocks.push_back(MessageGraph::from_block(b));
  model.eval();
  torch::NoGradGuard no_grad;
  const auto sampled =
      model.forward(p.features.index_select(0, torch::tensor(batch.input_nodes, torch::kLong)), blocks);
  const auto exact = layerwise_inference(model, p.csr, [&](std::span<const std::int64_t> ids) {
    return p.features.index_select(0, torch::tensor(std::vector<std::int64_t>(ids.begin(), ids.end()), torch::kLong));
  });
  EXPECT_LE((sampled - exact.logits.index_select(0, torch::tensor(seeds, torch::kLong))).abs().max().item<double>(),
            1e-5);
}

TEST(ReluDropout, KeepsOneMinusPScalesAndPassesGradientsThroughTheMask) {
  torch::manual_seed(7);
  const auto x = torch::randn({300, 200}).requires_grad_(true);
  torch::manual_seed(11);
  const auto y = relu_dropout(x, 0.3, /*training=*/true);
  const auto positive = x.detach() > 0;
  const auto kept = y.detach() != 0;
  EXPECT_FALSE((kept & ~positive).any().item<bool>());  // relu first
  const double keep_rate = kept.sum().item<double>() / positive.sum().item<double>();
  EXPECT_NEAR(keep_rate, 0.7, 0.01);
  const auto kept_x = x.detach().masked_select(kept);
  EXPECT_LE((y.detach().masked_select(kept) - kept_x / 0.7).abs().max().item<double>(), 1e-6);
  const auto g = torch::autograd::grad({y}, {x}, {torch::ones_like(y)})[0];
  EXPECT_LE((g - kept.to(torch::kFloat) / 0.7).abs().max().item<double>(), 1e-6);
  // Same seed, same mask; eval mode is plain relu.
  torch::manual_seed(11);
  EXPECT_TRUE(torch::equal(relu_dropout(x.detach(), 0.3, true), y.detach()));
  EXPECT_TRUE(torch::equal(relu_dropout(x.detach(), 0.3, false), torch::relu(x.detach())));
  EXPECT_THROW(relu_dropout(x, 1.0, true), Error);
}

TEST(Dropout, KeepsOneMinusPOfEverySignAndPassesGradientsThroughTheMask) {
  torch::manual_seed(7);
  const auto x = torch::randn({300, 200}).requires_grad_(true);
  torch::manual_seed(11);
  const auto y = nn::dropout(x, 0.3, /*training=*/true);
  const auto kept = y.detach() != 0;
  EXPECT_NEAR(kept.to(torch::kDouble).mean().item<double>(), 0.7, 0.01);
  EXPECT_TRUE((kept & (x.detach() < 0)).any().item<bool>());  // no relu
  EXPECT_LE((y.detach().masked_select(kept) - x.detach().masked_select(kept) / 0.7).abs().max().item<double>(), 1e-6);
  const auto g = torch::autograd::grad({y}, {x}, {torch::ones_like(y)})[0];
  EXPECT_LE((g - kept.to(torch::kFloat) / 0.7).abs().max().item<double>(), 1e-6);
  torch::manual_seed(11);
  EXPECT_TRUE(torch::equal(nn::dropout(x.detach(), 0.3, true), y.detach()));
  EXPECT_TRUE(torch::equal(nn::dropout(x.detach(), 0.3, false), x.detach()));
}

TEST(GnnModel, RejectsBadOptions) {
  EXPECT_THROW(core::parse_enum(kModelKindNames, "gin", "--model"), Error);
  EXPECT_THROW(GnnModel(options(ModelKind::kSage, 0, 5, 8, 2, 0.5, 0)), Error);
  EXPECT_THROW(GnnModel(options(ModelKind::kSage, 2, 5, 8, 2, 1.0, 0)), Error);
  EXPECT_THROW(GnnModel(options(ModelKind::kGat, 2, 5, 10, 2, 0.5, 4)), Error);  // 10 % 4 != 0
  EXPECT_THROW(GnnModel(options(ModelKind::kGcn, 2, 5, 8, 0, 0.5, 0)), Error);
  GnnModel model(options(ModelKind::kSage, 2, 5, 8, 2, 0.5, 0));
  const auto block = MessageGraph(torch::tensor({0, 1}, torch::kLong), torch::tensor({1}, torch::kInt), 2);
  EXPECT_THROW(model.forward(torch::randn({2, 5}), {block}), Error);         // 1 block, 2 layers
  EXPECT_THROW(model.forward(torch::randn({2, 4}), {block, block}), Error);  // wrong width
}

// An option only GAT has, set on another model, is an error naming it.
TEST(GnnModel, GatOnlyOptionsOnOtherModelsNameTheOption) {
  auto expect_named = [](ModelOptions o, const std::string& name) {
    try {
      check_model_options(o);
      ADD_FAILURE() << name << " accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.argument(), name) << e.what();
    }
  };
  for (const ModelKind kind : {ModelKind::kSage, ModelKind::kGcn}) {
    auto o = options(kind, 2, 5, 8, 2, 0.5, 0);
    o.heads = 2;
    expect_named(o, "--heads");
    o = options(kind, 2, 5, 8, 2, 0.5, 0);
    o.output_heads = 8;
    expect_named(o, "--output-heads");
    o = options(kind, 2, 5, 8, 2, 0.5, 0);
    o.attention_dropout = 0.6;
    expect_named(o, "--attention-dropout");
    o = options(kind, 2, 5, 8, 2, 0.5, 0);
    o.head_merge = HeadMerge::kMean;
    expect_named(o, "--head-merge");
  }
  auto gat = options(ModelKind::kGat, 2, 5, 8, 2, 0.5, 4);
  gat.input_dropout = 1.0;
  expect_named(gat, "--input-dropout");
}

// GAT's published shapes: 8 heads x 8 hidden concatenated (64 wide) and 1 or 8 averaged output
// heads; with --head-merge mean each hidden head is `hidden` wide.
TEST(GnnModel, GatHeadsAndMergeGiveThePublishedShapes) {
  const auto p = planted(120, 6, 8);
  const auto whole = MessageGraph::from_csr(p.csr);
  for (const std::int64_t output_heads : {1, 8}) {
    auto o = options(ModelKind::kGat, 2, 6, 64, 3, 0.6, 8);
    o.output_heads = output_heads;
    o.activation = Activation::kElu;
    o.input_dropout = 0.6;
    o.attention_dropout = 0.6;
    GnnModel model(o);
    const auto params = model.named_parameters();
    EXPECT_EQ(params["conv0.weight"].sizes(), (std::vector<std::int64_t>{64, 6}));  // 8 heads x 8
    EXPECT_EQ(params["conv1.weight"].sizes(), (std::vector<std::int64_t>{output_heads * 3, 64}));
    EXPECT_EQ(model.forward(p.features, {whole, whole}).sizes(), (std::vector<std::int64_t>{120, 3}));
  }
  auto mean = options(ModelKind::kGat, 2, 6, 10, 3, 0.5, 4);
  mean.head_merge = HeadMerge::kMean;  // 10 % 4 != 0 is fine when heads are averaged
  GnnModel model(mean);
  EXPECT_EQ(model.named_parameters()["conv0.weight"].sizes(), (std::vector<std::int64_t>{40, 6}));
  EXPECT_EQ(model.layer_out_features(0), 10);
}

// Input dropout and ELU act in training only; evaluation is deterministic.
TEST(GnnModel, InputDropoutAndEluActInTrainingOnly) {
  const auto p = planted(100, 6, 9);
  const auto whole = MessageGraph::from_csr(p.csr);
  auto o = options(ModelKind::kGcn, 2, 6, 8, 2, 0.0, 0);
  o.input_dropout = 0.5;
  o.activation = Activation::kElu;
  torch::manual_seed(1);
  GnnModel model(o);
  const auto a = model.forward(p.features, {whole, whole});
  const auto b = model.forward(p.features, {whole, whole});
  EXPECT_FALSE(torch::equal(a, b)) << "input dropout draws a new mask each step";
  model.eval();
  const auto c = model.forward(p.features, {whole, whole});
  EXPECT_TRUE(torch::equal(c, model.forward(p.features, {whole, whole})));
  // Layer 0 by hand: ELU(GCN(x)) then the output layer, no dropout in eval mode.
  const auto h = model.forward_layer(0, whole, p.features);
  EXPECT_LT(h.min().item<double>(), 0) << "ELU keeps negative values";
  EXPECT_GE(h.min().item<double>(), -1.0);
}

}  // namespace
}  // namespace loom::nn
