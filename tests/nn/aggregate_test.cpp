// The aggregation ops against dense references built from the adjacency matrix with plain torch
// ops and autograd (values and gradients, float32), and against central finite differences in
// float64. Random blocks have empty rows, sources that are never used and varying degrees.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "loom/core/error.hpp"
#include "loom/core/rng.hpp"
#include "loom/graph/build_csr.hpp"
#include "loom/nn/aggregate.hpp"
#include "loom/nn/gat_aggregate.hpp"

namespace loom::nn {
namespace {

sample::Block random_block(std::int64_t num_src, std::int64_t num_dst, std::int64_t max_degree, std::uint64_t seed) {
  core::Rng rng(seed);
  sample::Block b;
  b.num_src = num_src;
  b.num_dst = num_dst;
  b.indptr.push_back(0);
  for (std::int64_t i = 0; i < num_dst; ++i) {
    const auto deg = static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(max_degree + 1)));
    std::vector<std::int32_t> picked;
    while (static_cast<std::int64_t>(picked.size()) < deg) {
      const auto j = static_cast<std::int32_t>(rng.below(static_cast<std::uint64_t>(num_src)));
      if (j != i && std::find(picked.begin(), picked.end(), j) == picked.end()) picked.push_back(j);
    }
    b.indices.insert(b.indices.end(), picked.begin(), picked.end());
    b.indptr.push_back(static_cast<std::int64_t>(b.indices.size()));
  }
  return b;
}

torch::Tensor dense_adjacency(const sample::Block& b, torch::ScalarType dtype) {
  auto a = torch::zeros({b.num_dst, b.num_src}, torch::kDouble);
  auto acc = a.accessor<double, 2>();
  for (std::int64_t i = 0; i < b.num_dst; ++i) {
    for (std::int64_t e = b.indptr[i]; e < b.indptr[i + 1]; ++e) acc[i][b.indices[e]] = 1.0;
  }
  return a.to(dtype);
}

// Adjacency plus one self-loop per destination.
torch::Tensor with_self_loops(const torch::Tensor& a) { return a + torch::eye(a.size(0), a.size(1), a.options()); }

torch::Tensor dense_aggregate(const torch::Tensor& a, const torch::Tensor& x, Aggregation kind) {
  if (kind == Aggregation::kSum) return a.mm(x);
  if (kind == Aggregation::kMean) return (a / a.sum(1, true).clamp_min(1)).mm(x);
  const auto s = with_self_loops(a);
  const auto n_dst = s.sum(1).rsqrt();
  const auto n_src = s.sum(0).clamp_min(1).rsqrt();
  return (n_dst.unsqueeze(1) * s * n_src.unsqueeze(0)).mm(x);
}

torch::Tensor dense_gat(const torch::Tensor& a, const torch::Tensor& x, const torch::Tensor& a_src,
                        const torch::Tensor& a_dst, double slope, bool self_loops) {
  const auto mask = self_loops ? with_self_loops(a) : a;
  std::vector<torch::Tensor> heads;
  for (std::int64_t h = 0; h < x.size(1); ++h) {
    const auto z = torch::leaky_relu(a_dst.select(1, h).unsqueeze(1) + a_src.select(1, h).unsqueeze(0), slope);
    const auto masked = torch::where(mask > 0, z, torch::full_like(z, -1e30));
    auto alpha = torch::softmax(masked, 1) * (mask.sum(1, true) > 0);
    heads.push_back(alpha.mm(x.select(1, h)));
  }
  return torch::stack(heads, 1);
}

void expect_close(const torch::Tensor& got, const torch::Tensor& want, double tol, const std::string& what) {
  ASSERT_EQ(got.sizes(), want.sizes()) << what;
  const double err = (got - want).abs().max().item<double>();
  EXPECT_LE(err, tol) << what << ": max abs error " << err;
}

class AggregateVsDense : public ::testing::TestWithParam<Aggregation> {};

TEST_P(AggregateVsDense, ValuesAndGradientsMatchFloat32) {
  torch::manual_seed(0);
  const auto block = random_block(60, 35, 7, 11);
  const auto graph = MessageGraph::from_block(block);
  const auto a = dense_adjacency(block, torch::kFloat);
  const auto x = torch::randn({60, 9}).requires_grad_(true);
  const auto upstream = torch::randn({35, 9});
  const auto got = aggregate(graph, x, GetParam());
  const auto want = dense_aggregate(a, x, GetParam());
  expect_close(got, want, 1e-5, "forward");
  const auto g_got = torch::autograd::grad({got}, {x}, {upstream})[0];
  const auto g_want = torch::autograd::grad({want}, {x}, {upstream})[0];
  expect_close(g_got, g_want, 1e-5, "gradient");
  // The device-generic path computes the same.
  const auto generic = detail::aggregate_generic(graph, x, GetParam());
  expect_close(generic, want, 1e-5, "generic forward");
  expect_close(torch::autograd::grad({generic}, {x}, {upstream})[0], g_want, 1e-5, "generic gradient");
}

TEST_P(AggregateVsDense, Int64IndicesGiveTheSameResult) {
  torch::manual_seed(1);
  const auto block = random_block(30, 20, 5, 12);
  const auto narrow = MessageGraph::from_block(block);
  const MessageGraph wide(narrow.indptr(), narrow.indices().to(torch::kLong), narrow.num_src());
  const auto x = torch::randn({30, 4}).requires_grad_(true);
  const auto upstream = torch::randn({20, 4});
  const auto y32 = aggregate(narrow, x, GetParam());
  const auto y64 = aggregate(wide, x, GetParam());
  expect_close(y64, y32, 0, "forward");
  expect_close(torch::autograd::grad({y64}, {x}, {upstream})[0], torch::autograd::grad({y32}, {x}, {upstream})[0], 0,
               "gradient");
}

// Central finite differences of <out, upstream> against the hand-written backward, float64.
void expect_matches_finite_differences(const std::function<torch::Tensor(const std::vector<torch::Tensor>&)>& f,
                                       std::vector<torch::Tensor> inputs) {
  for (auto& t : inputs) t.requires_grad_(true);
  const auto out = f(inputs);
  const auto upstream = torch::randn_like(out);
  const auto analytic = torch::autograd::grad({out}, inputs, {upstream});
  const double eps = 1e-6;
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    auto flat = inputs[k].detach().clone().view({-1});
    auto numeric = torch::zeros_like(flat);
    for (std::int64_t q = 0; q < flat.numel(); ++q) {
      std::vector<torch::Tensor> plus(inputs.begin(), inputs.end()), minus = plus;
      for (auto& t : plus) t = t.detach();
      for (auto& t : minus) t = t.detach();
      auto p = flat.clone();
      p[q] += eps;
      plus[k] = p.view(inputs[k].sizes());
      auto m = flat.clone();
      m[q] -= eps;
      minus[k] = m.view(inputs[k].sizes());
      numeric[q] = ((f(plus) - f(minus)) * upstream).sum() / (2 * eps);
    }
    expect_close(analytic[k].reshape({-1}), numeric, 1e-6, "input " + std::to_string(k));
  }
}

TEST_P(AggregateVsDense, GradientMatchesFiniteDifferencesFloat64) {
  torch::manual_seed(2);
  const auto graph = MessageGraph::from_block(random_block(8, 5, 3, 13));
  expect_matches_finite_differences([&](const auto& in) { return aggregate(graph, in[0], GetParam()); },
                                    {torch::randn({8, 3}, torch::kDouble)});
}

TEST_P(AggregateVsDense, SparseProductMatchesTheKernelInFloat64) {
  torch::manual_seed(3);
  const auto block = random_block(40, 25, 6, 18);
  const auto graph = MessageGraph::from_block(block);
  const auto x = torch::randn({40, 5}, torch::kDouble).requires_grad_(true);
  const auto upstream = torch::randn({25, 5}, torch::kDouble);
  const auto kernel = aggregate(graph, x, GetParam());
  const auto product = detail::aggregate_generic(graph, x, GetParam());
  expect_close(product, kernel, 1e-12, "forward");
  expect_close(torch::autograd::grad({product}, {x}, {upstream})[0],
               torch::autograd::grad({kernel}, {x}, {upstream})[0], 1e-12, "gradient");
  const auto small = MessageGraph::from_block(random_block(8, 5, 3, 20));
  expect_matches_finite_differences([&](const auto& in) { return detail::aggregate_generic(small, in[0], GetParam()); },
                                    {torch::randn({8, 3}, torch::kDouble)});
}

INSTANTIATE_TEST_SUITE_P(Kinds, AggregateVsDense,
                         ::testing::Values(Aggregation::kSum, Aggregation::kMean, Aggregation::kGcn));

class GatVsDense : public ::testing::TestWithParam<bool> {};

TEST_P(GatVsDense, ValuesAndGradientsMatchFloat32) {
  const bool self_loops = GetParam();
  torch::manual_seed(3);
  const auto block = random_block(50, 30, 6, 14);
  const auto graph = MessageGraph::from_block(block);
  const auto a = dense_adjacency(block, torch::kFloat);
  const auto x = torch::randn({50, 3, 5}).requires_grad_(true);
  const auto a_src = torch::randn({50, 3}).requires_grad_(true);
  const auto a_dst = torch::randn({30, 3}).requires_grad_(true);
  const auto upstream = torch::randn({30, 3, 5});
  const auto got = gat_aggregate(graph, x, a_src, a_dst, 0.2, self_loops);
  const auto want = dense_gat(a, x, a_src, a_dst, 0.2, self_loops);
  expect_close(got, want, 1e-5, "forward");
  const auto g_got = torch::autograd::grad({got}, {x, a_src, a_dst}, {upstream});
  const auto g_want = torch::autograd::grad({want}, {x, a_src, a_dst}, {upstream});
  expect_close(g_got[0], g_want[0], 1e-5, "grad x");
  expect_close(g_got[1], g_want[1], 1e-5, "grad a_src");
  expect_close(g_got[2], g_want[2], 1e-5, "grad a_dst");
  const auto generic = detail::gat_aggregate_generic(graph, x, a_src, a_dst, 0.2, self_loops);
  expect_close(generic, want, 1e-5, "generic forward");
  const auto g_generic = torch::autograd::grad({generic}, {x, a_src, a_dst}, {upstream});
  for (int k = 0; k < 3; ++k) expect_close(g_generic[k], g_want[k], 1e-5, "generic grad " + std::to_string(k));
}

TEST_P(GatVsDense, GradientMatchesFiniteDifferencesFloat64) {
  torch::manual_seed(4);
  const auto graph = MessageGraph::from_block(random_block(7, 5, 3, 15));
  expect_matches_finite_differences(
      [&](const auto& in) { return gat_aggregate(graph, in[0], in[1], in[2], 0.2, GetParam()); },
      {torch::randn({7, 2, 3}, torch::kDouble), torch::randn({7, 2}, torch::kDouble),
       torch::randn({5, 2}, torch::kDouble)});
}

// Attention dropout: the kernel draws its keep scales from torch's generator, so the same seed
// gives the generic path (which takes them as arguments) the same mask; both equal the dense
// attention with the dropped coefficients zeroed and the kept ones scaled by 1 / (1 - p).
TEST_P(GatVsDense, AttentionDropoutMatchesTheDenseFormulaWithTheSameMask) {
  const bool self_loops = GetParam();
  const double p = 0.4;
  torch::manual_seed(5);
  const auto block = random_block(40, 25, 6, 16);
  const auto graph = MessageGraph::from_block(block);
  const auto x = torch::randn({40, 2, 3}).requires_grad_(true);
  const auto a_src = torch::randn({40, 2}).requires_grad_(true);
  const auto a_dst = torch::randn({25, 2}).requires_grad_(true);
  const auto upstream = torch::randn({25, 2, 3});
  torch::manual_seed(9);
  const auto got = gat_aggregate(graph, x, a_src, a_dst, 0.2, self_loops, p, /*training=*/true);
  torch::manual_seed(9);
  const auto keep = torch::empty({graph.num_edges(), 2}).bernoulli_(1 - p).div_(1 - p);
  const auto keep_self = torch::empty({self_loops ? 25 : 0, 2}).bernoulli_(1 - p).div_(1 - p);
  EXPECT_GT((keep == 0).sum().item<std::int64_t>(), 0) << "some coefficients drop";
  const auto want = detail::gat_aggregate_generic(graph, x, a_src, a_dst, 0.2, self_loops, keep, keep_self);
  expect_close(got, want, 1e-5, "forward");
  const auto g_got = torch::autograd::grad({got}, {x, a_src, a_dst}, {upstream});
  const auto g_want = torch::autograd::grad({want}, {x, a_src, a_dst}, {upstream});
  for (int k = 0; k < 3; ++k) expect_close(g_got[k], g_want[k], 1e-5, "grad " + std::to_string(k));
  // Not training, or p = 0: no dropout.
  const auto plain = gat_aggregate(graph, x, a_src, a_dst, 0.2, self_loops);
  expect_close(gat_aggregate(graph, x, a_src, a_dst, 0.2, self_loops, p, /*training=*/false), plain, 0, "eval");
  EXPECT_FALSE(torch::allclose(got, plain));
}

TEST_P(GatVsDense, AttentionDropoutGradientMatchesFiniteDifferencesFloat64) {
  torch::manual_seed(6);
  const auto graph = MessageGraph::from_block(random_block(7, 5, 3, 17));
  expect_matches_finite_differences(
      [&](const auto& in) {
        torch::manual_seed(21);  // the same mask at every evaluation
        return gat_aggregate(graph, in[0], in[1], in[2], 0.2, GetParam(), 0.5, /*training=*/true);
      },
      {torch::randn({7, 2, 3}, torch::kDouble), torch::randn({7, 2}, torch::kDouble),
       torch::randn({5, 2}, torch::kDouble)});
}

INSTANTIATE_TEST_SUITE_P(SelfLoops, GatVsDense, ::testing::Bool());

// A block that samples k of a node's d neighbours weighs their GCN sum by d / k: with the whole
// graph's norms, the aggregation is n_d[i] (d/k sum_sampled n_s[j] x[j] + n_s[i] x[i]).
TEST(MessageGraph, SampledGcnNormScalesTheNeighbourSumByDegreeOverSampled) {
  graph::EdgeList list;
  list.num_nodes = 6;
  list.src = {0, 0, 0, 0, 1, 2};
  list.dst = {1, 2, 3, 4, 5, 5};
  auto built = graph::build_csr(list, graph::CsrBuildOptions{});
  const auto csr = graph::Csr::from_vectors(std::move(built.indptr), built.indices, 6);
  // Destinations 0 (degree 4, 2 sampled) and 5 (degree 2, both sampled); sources in local order.
  sample::Block block;
  block.num_dst = 2;
  block.num_src = 5;
  block.indptr = {0, 2, 4};
  block.indices = {2, 3, 2, 3};                             // 0 <- {1, 2} of {1, 2, 3, 4}; 5 <- {1, 2}
  const std::vector<std::int64_t> nodes = {0, 5, 1, 2, 4};  // local id -> global id (4 unused)
  const GcnNorm norm = sampled_gcn_norm(csr, block, nodes);
  ASSERT_TRUE(norm.neighbor_scale.defined());
  EXPECT_FLOAT_EQ(norm.neighbor_scale[0].item<float>(), 2.0f);  // 4 neighbours, 2 sampled
  EXPECT_FLOAT_EQ(norm.neighbor_scale[1].item<float>(), 1.0f);  // all taken
  const auto graph = MessageGraph::from_block(block).with_gcn_norm(norm);
  torch::manual_seed(8);
  const auto x = torch::randn({5, 3}, torch::kDouble);
  const auto n = [&](std::int64_t v) { return 1.0 / std::sqrt(static_cast<double>(csr.degree(v) + 1)); };
  auto want = torch::zeros({2, 3}, torch::kDouble);
  want[0] = n(0) * (2.0 * (n(1) * x[2] + n(2) * x[3]) + n(0) * x[0]);
  want[1] = n(5) * (1.0 * (n(1) * x[2] + n(2) * x[3]) + n(5) * x[1]);
  expect_close(aggregate(graph, x, Aggregation::kGcn), want, 1e-6, "kernel");
  expect_close(detail::aggregate_generic(graph, x, Aggregation::kGcn), want, 1e-6, "generic");
  // A block that takes every neighbour needs no scale.
  sample::Block full = block;
  full.num_src = 6;
  full.indptr = {0, 4, 6};
  full.indices = {2, 3, 4, 5, 2, 3};
  const std::vector<std::int64_t> full_nodes = {0, 5, 1, 2, 3, 4};
  EXPECT_FALSE(sampled_gcn_norm(csr, full, full_nodes).neighbor_scale.defined());
}

TEST(MessageGraph, TransposeBySortEqualsTheCountingSort) {
  for (const bool wide : {false, true}) {
    const auto block = random_block(50, 30, 8, 19);
    const auto narrow = MessageGraph::from_block(block);
    const MessageGraph graph(narrow.indptr(), wide ? narrow.indices().to(torch::kLong) : narrow.indices(),
                             narrow.num_src());
    const TransposedCsr counted = detail::transpose_by_counting(graph.indptr(), graph.indices(), graph.num_src());
    const TransposedCsr sorted =
        detail::transpose_by_sort(graph.indptr(), graph.indices(), graph.edge_dst(), graph.num_src());
    EXPECT_TRUE(torch::equal(sorted.t_indptr, counted.t_indptr)) << "wide " << wide;
    EXPECT_TRUE(torch::equal(sorted.t_dst, counted.t_dst)) << "wide " << wide;
    EXPECT_TRUE(torch::equal(sorted.t_edge, counted.t_edge)) << "wide " << wide;
    EXPECT_EQ(sorted.t_dst.scalar_type(), graph.indices().scalar_type());
  }
}

TEST(MessageGraph, WholeGraphGcnNormIsTheGlobalDegreeNorm) {
  graph::EdgeList list;
  list.num_nodes = 6;
  list.src = {0, 0, 1, 2, 3, 4};
  list.dst = {1, 2, 2, 3, 4, 5};
  auto built = graph::build_csr(list, graph::CsrBuildOptions{});
  const auto csr = graph::Csr::from_vectors(std::move(built.indptr), built.indices, 6);
  const auto g = MessageGraph::from_csr(csr);
  EXPECT_EQ(g.num_src(), 6);
  EXPECT_EQ(g.num_dst(), 6);
  const std::vector<std::int64_t> all = {0, 1, 2, 3, 4, 5};
  const GcnNorm global = global_gcn_norm(csr, all, all);
  expect_close(g.gcn_norm().src, global.src, 1e-7, "src norm");
  expect_close(g.gcn_norm().dst, global.dst, 1e-7, "dst norm");
}

TEST(MessageGraph, RejectsInconsistentTensors) {
  const auto ptr = torch::tensor({0, 2, 3}, torch::kLong);
  EXPECT_THROW(MessageGraph(ptr, torch::tensor({0, 5, 1}, torch::kInt), 3), Error);  // id out of range
  EXPECT_THROW(MessageGraph(ptr, torch::tensor({0, 1}, torch::kInt), 3), Error);     // edge count
  EXPECT_THROW(MessageGraph(ptr, torch::tensor({0, 1, 2}, torch::kInt), 1), Error);  // num_src < num_dst
  EXPECT_THROW(MessageGraph(ptr, torch::tensor({0.0, 1.0, 2.0}), 3), Error);         // dtype
  const MessageGraph ok(ptr, torch::tensor({0, 1, 2}, torch::kInt), 3);
  EXPECT_THROW(aggregate(ok, torch::randn({4, 2}), Aggregation::kSum), Error);  // rows != num_src
  EXPECT_THROW(gat_aggregate(ok, torch::randn({3, 2, 2}), torch::randn({3, 1}), torch::randn({2, 2}), 0.2, true),
               Error);
}

}  // namespace
}  // namespace loom::nn
