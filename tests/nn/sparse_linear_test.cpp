// The sparse first layer: sparse_linear against torch's dense product (values and the weight's
// gradient, int32 and int64 indices, a head of the rows), and every model kind giving the same
// logits and parameter gradients on a sparse x as on the same rows dense.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "loom/core/error.hpp"
#include "loom/graph/build_csr.hpp"
#include "loom/nn/model.hpp"
#include "loom/nn/sparse_linear.hpp"
#include "loom/sample/neighbor_sampler.hpp"

namespace loom::nn {
namespace {

// [rows, columns] rows with about `per_row` nonzeros each (some rows empty).
torch::Tensor bag_of_words(std::int64_t rows, std::int64_t columns, double per_row, std::uint64_t seed) {
  torch::manual_seed(seed);
  const auto keep = torch::rand({rows, columns}) < per_row / static_cast<double>(columns);
  return torch::where(keep, torch::rand({rows, columns}) + 0.5, torch::zeros({rows, columns}));
}

torch::Tensor csr_of(const torch::Tensor& dense, torch::ScalarType index) {
  const auto csr = dense.to_sparse_csr();
  return at::_sparse_csr_tensor_unsafe(csr.crow_indices().to(index), csr.col_indices().to(index), csr.values(),
                                       csr.sizes(), csr.options());
}

class SparseLinearIndex : public ::testing::TestWithParam<torch::ScalarType> {};

TEST_P(SparseLinearIndex, EqualsTheDenseProductAndItsWeightGradient) {
  const auto dense = bag_of_words(50, 40, 4, 1);
  const auto weight = torch::randn({6, 40}, torch::requires_grad());
  for (const std::int64_t rows : {50, 17, 0}) {
    const auto expected = torch::mm(dense.slice(0, 0, rows), weight.t());
    const auto grad = torch::randn({rows, 6});
    const auto expected_grad = torch::autograd::grad({expected}, {weight}, {grad})[0];
    const auto got = sparse_linear(csr_of(dense, GetParam()), weight, rows);
    const auto got_grad = torch::autograd::grad({got}, {weight}, {grad})[0];
    EXPECT_TRUE(torch::allclose(got, expected, 1e-5, 1e-5)) << rows;
    EXPECT_TRUE(torch::allclose(got_grad, expected_grad, 1e-5, 1e-5)) << rows;
  }
}

TEST_P(SparseLinearIndex, WeightGradientByRowsEqualsByColumns) {
  const auto x = csr_of(bag_of_words(300, 80, 6, 5), GetParam());
  const auto grad = torch::randn({250, 16});
  const auto by_rows = detail::sparse_weight_gradient(x, 250, grad, true);
  const auto by_columns = detail::sparse_weight_gradient(x, 250, grad, false);
  EXPECT_TRUE(torch::allclose(by_rows, by_columns, 1e-5, 1e-5));
  EXPECT_TRUE(torch::allclose(by_rows, torch::mm(x.to_dense().slice(0, 0, 250).t(), grad), 1e-4, 1e-4));
}

INSTANTIATE_TEST_SUITE_P(Indices, SparseLinearIndex, ::testing::Values(torch::kInt, torch::kLong));

TEST(SparseLinear, RejectsADenseXAndMismatchedWidthsNamingTheArgument) {
  const auto weight = torch::randn({6, 40});
  try {
    sparse_linear(torch::randn({3, 40}), weight, 3);
    FAIL() << "a dense x was taken";
  } catch (const Error& e) {
    EXPECT_EQ(e.argument(), "x");
  }
  try {
    sparse_linear(csr_of(bag_of_words(3, 30, 2, 2), torch::kLong), weight, 3);
    FAIL() << "30 columns were taken for a weight of 40";
  } catch (const Error& e) {
    EXPECT_EQ(e.argument(), "weight");
  }
}

TEST(SparseRowsDropout, DropsStoredValuesInTrainingOnly) {
  const auto x = csr_of(bag_of_words(200, 50, 10, 3), torch::kLong);
  EXPECT_TRUE(torch::equal(sparse_rows_dropout(x, 0.5, false).values(), x.values()));
  const auto dropped = sparse_rows_dropout(x, 0.5, true);
  EXPECT_TRUE(torch::equal(dropped.col_indices(), x.col_indices()));
  const double kept = (dropped.values() != 0).to(torch::kDouble).mean().item<double>();
  EXPECT_NEAR(kept, 0.5, 0.05);
  const auto survivors = dropped.values() != 0;
  EXPECT_TRUE(torch::allclose(dropped.values().masked_select(survivors), x.values().masked_select(survivors) * 2));
}

graph::Csr ring_with_chords(std::int64_t n) {
  graph::EdgeList list;
  list.num_nodes = n;
  for (std::int64_t u = 0; u < n; ++u) {
    for (const std::int64_t step : {1, 7, 23}) {
      list.src.push_back(u);
      list.dst.push_back((u + step) % n);
    }
  }
  auto built = graph::build_csr(list, graph::CsrBuildOptions{});
  return graph::Csr::from_vectors(std::move(built.indptr), built.indices, n);
}

class SparseModelKinds : public ::testing::TestWithParam<ModelKind> {};

TEST_P(SparseModelKinds, SparseRowsGiveTheDenseRowsLogitsAndGradients) {
  const auto csr = ring_with_chords(120);
  const auto batch = sample::NeighborSampler(csr, {4, 3}).sample(std::vector<std::int64_t>{0, 5, 9, 60}, 7);
  std::vector<MessageGraph> blocks;
  for (const auto& b : batch.blocks) blocks.push_back(MessageGraph::from_block(b));
  const auto ids = torch::tensor(batch.input_nodes, torch::kLong);
  const auto x = bag_of_words(120, 64, 5, 4).index_select(0, ids);
  ModelOptions o{.kind = GetParam(), .num_layers = 2, .in_features = 64, .hidden = 8, .num_classes = 3};
  if (GetParam() == ModelKind::kGat) o.heads = 2;
  torch::manual_seed(0);
  GnnModel model(o);
  model.eval();  // no dropout: both passes see the same inputs
  const auto run = [&](const torch::Tensor& input) {
    model.zero_grad();
    const auto logits = model.forward(input, blocks);
    logits.pow(2).sum().backward();
    std::vector<torch::Tensor> grads;
    for (const auto& p : model.parameters()) grads.push_back(p.grad().clone());
    return std::make_pair(logits.detach(), grads);
  };
  const auto [dense_logits, dense_grads] = run(x);
  const auto [sparse_logits, sparse_grads] = run(csr_of(x, torch::kLong));
  EXPECT_TRUE(torch::allclose(sparse_logits, dense_logits, 1e-4, 1e-5));
  for (std::size_t k = 0; k < dense_grads.size(); ++k)
    EXPECT_TRUE(torch::allclose(sparse_grads[k], dense_grads[k], 1e-4, 1e-5)) << k;
}

INSTANTIATE_TEST_SUITE_P(Kinds, SparseModelKinds, ::testing::Values(ModelKind::kSage, ModelKind::kGcn, ModelKind::kGat),
                         [](const auto& info) { return model_kind_name(info.param); });

}  // namespace
}  // namespace loom::nn
