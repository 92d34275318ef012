// Sampled training computes the GCN that exact inference computes (Kipf & Welling's
// normalisation with the whole graph's degrees): a 2-layer GCN trained on blocks with every
// neighbour sampled (--fanouts -1,-1) gives exactly the logits and gradients of the dense
// full-graph GCN D^-1/2 (A + I) D^-1/2 (to 1e-5), and sampled blocks carry the whole graph's norms
// too. Checked on a generated graph always, and on Cora where the shared data is present.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "loom/feature/feature_source.hpp"
#include "loom/graph/generate/sbm.hpp"
#include "loom/graph/io/ogb.hpp"
#include "loom/nn/model.hpp"
#include "loom/loader/batch_builder.hpp"
#include "loom/train/minibatch/evaluation.hpp"
#include "support/single_rank_world.hpp"
#include "support/test_support.hpp"

namespace loom::train {
namespace {

// Â = D^-1/2 (A + I) D^-1/2 of the store's whole graph, D = degree + 1, in float64.
torch::Tensor dense_gcn_operator(const graph::Csr& csr) {
  const std::int64_t n = csr.num_rows();
  auto a = torch::eye(n, torch::kDouble);
  auto acc = a.accessor<double, 2>();
  csr.visit([&](auto view) {
    for (std::int64_t i = 0; i < n; ++i)
      for (const auto j : view.neighbors(i)) acc[i][j] += 1.0;
  });
  const auto d = a.sum(1).rsqrt();
  return d.unsqueeze(1) * a * d.unsqueeze(0);
}

// The 2-layer GCN of the paper with the model's own weights, in float64: Â relu(Â X W1ᵀ + b1) W2ᵀ + b2.
torch::Tensor dense_gcn(nn::GnnModel& model, const torch::Tensor& op, const torch::Tensor& x) {
  const auto p = model.named_parameters();
  const auto w1 = p["conv0.weight"].to(torch::kDouble), b1 = p["conv0.bias"].to(torch::kDouble);
  const auto w2 = p["conv1.weight"].to(torch::kDouble), b2 = p["conv1.bias"].to(torch::kDouble);
  const auto h = torch::relu(op.mm(x.to(torch::kDouble)).mm(w1.t()) + b1);
  return op.mm(h).mm(w2.t()) + b2;
}

double max_error(const torch::Tensor& got, const torch::Tensor& want) {
  return (got.to(torch::kDouble) - want).abs().max().item<double>();
}

void expect_sampled_training_is_the_full_graph_gcn(const std::string& store) {
  auto world = testing::single_rank_world();
  const loader::TrainingData data = loader::open_training_data(store, world);
  const auto& csr = data.topology.csr();
  torch::manual_seed(7);
  nn::ModelOptions o;
  o.kind = nn::ModelKind::kGcn;
  o.num_layers = 2;
  o.hidden = 16;
  o.dropout = 0;
  o.in_features = data.feat_dim;
  o.num_classes = data.num_classes;
  nn::GnnModel model(o);

  feature::RemoteFetcher fetcher(world, data.book, data.features, feature::WireDType::kFloat32);
  const feature::FeatureSource features(fetcher);
  const sample::NeighborSampler sampler(csr, {-1, -1});
  const loader::BatchBuilder builder(data, sampler, features, nullptr, /*whole_graph_gcn_norm=*/true);
  const std::vector<std::int64_t>& seeds = data.train_ids;
  const loader::PreparedBatch batch = builder.build(seeds, /*sample_seed=*/1);

  // All node features, and the dense reference for the seeds.
  std::vector<std::int64_t> all(static_cast<std::size_t>(data.num_nodes()));
  std::iota(all.begin(), all.end(), 0);
  auto x_all = torch::empty({data.num_nodes(), data.feat_dim});
  data.features.gather(all, x_all.data_ptr<float>());
  const auto op = dense_gcn_operator(csr);
  const auto index = torch::tensor(seeds, torch::kLong);
  const auto want = dense_gcn(model, op, x_all).index_select(0, index);

  const auto got = model.forward(batch.x, batch.graphs);
  EXPECT_LE(max_error(got, want), 1e-5) << "logits of the sampled full-neighbourhood forward";

  // The same loss gives the same gradients.
  const auto labels = builder.labels(seeds);
  const auto loss_got = torch::nn::functional::cross_entropy(got, labels);
  const auto p = model.named_parameters();
  const std::vector<torch::Tensor> params = {p["conv0.weight"], p["conv0.bias"], p["conv1.weight"], p["conv1.bias"]};
  const auto g_got = torch::autograd::grad({loss_got}, params);
  std::vector<torch::Tensor> dense_params;
  for (const auto& t : params) dense_params.push_back(t.detach().to(torch::kDouble).requires_grad_(true));
  const auto h = torch::relu(op.mm(x_all.to(torch::kDouble)).mm(dense_params[0].t()) + dense_params[1]);
  const auto want_grad_logits = (op.mm(h).mm(dense_params[2].t()) + dense_params[3]).index_select(0, index);
  const auto loss_want = torch::nn::functional::cross_entropy(want_grad_logits, labels);
  const auto g_want = torch::autograd::grad({loss_want}, dense_params);
  for (std::size_t k = 0; k < params.size(); ++k)
    EXPECT_LE(max_error(g_got[k], g_want[k]), 1e-5) << "gradient of parameter " << k;

  // Exact inference computes the same function.
  const ExactInference exact = exact_inference(model, data, world);
  EXPECT_LE(max_error(exact.logits.index_select(0, index), want), 1e-5) << "exact inference";

  // Sampled blocks (fewer neighbours than the degree) carry the whole graph's norms.
  const sample::NeighborSampler sampled(csr, {2, 2});
  const loader::BatchBuilder sampled_builder(data, sampled, features, nullptr, /*whole_graph_gcn_norm=*/true);
  const loader::PreparedBatch small = sampled_builder.sample(seeds, 3);
  const auto& block = small.sampled.blocks.front();
  const std::span<const std::int64_t> src_nodes(small.sampled.input_nodes.data(), block.num_src);
  const nn::GcnNorm global = nn::global_gcn_norm(csr, src_nodes, src_nodes.first(block.num_dst));
  EXPECT_TRUE(torch::equal(small.graphs.front().gcn_norm().src, global.src));
  EXPECT_TRUE(torch::equal(small.graphs.front().gcn_norm().dst, global.dst));
  EXPECT_TRUE(small.graphs.front().gcn_norm().neighbor_scale.defined()) << "some node has more than 2 neighbours";
}

TEST(GcnEquivalence, FullNeighbourhoodTrainingIsTheDenseGcnOnAGeneratedGraph) {
  test::ScratchDir dir;
  graph::generate::SbmOptions o;
  o.nodes = 700;
  o.classes = 4;
  o.avg_degree = 8;
  o.feat_dim = 12;
  o.train = 0.2;
  o.seed = 5;
  graph::generate::generate_sbm_store(o, dir / "sbm", {});
  expect_sampled_training_is_the_full_graph_gcn(dir / "sbm");
}

TEST(GcnEquivalence, FullNeighbourhoodTrainingIsTheDenseGcnOnCora) {
  LOOM_REQUIRE_DATA(cora, "graphs/cora");
  test::ScratchDir dir;
  graph::io::OgbImportOptions import;
  import.dir = cora;
  graph::write_graph_store(graph::io::import_ogb(import), dir / "cora", {});
  expect_sampled_training_is_the_full_graph_gcn(dir / "cora");
}

}  // namespace
}  // namespace loom::train
