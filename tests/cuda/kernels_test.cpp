// The GPU against the CPU: every model's forward and backward on a sampled batch (SAGE, GCN, GAT),
// the aggregation ops alone, and the storage tier's batch assembly, with the same weights and
// inputs, agree within float32 tolerance (the GPU sums in another order). The GPU's transposed CSR
// (a sort on the device) is the CPU's; pinned batch graphs copy to the GPU unchanged; own rows
// read in place (mapped) assemble as on the CPU.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "cuda_support.hpp"
#include "loom/core/error.hpp"
#include "loom/core/rng.hpp"
#include "loom/graph/build_csr.hpp"
#include "loom/nn/aggregate.hpp"
#include "loom/nn/model.hpp"
#include "loom/sample/neighbor_sampler.hpp"
#include "loom/nn/device.hpp"
#include "loom/loader/device_features.hpp"
#include "support/single_rank_world.hpp"

namespace loom::nn {
namespace {

using testing::relative_difference;
constexpr double kTolerance = 1e-4;

graph::Csr random_graph(std::int64_t n, std::int64_t edges, std::uint64_t seed) {
  core::Rng rng(seed);
  graph::EdgeList list;
  list.num_nodes = n;
  for (std::int64_t e = 0; e < edges; ++e) {
    list.src.push_back(static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(n))));
    list.dst.push_back(static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(n))));
  }
  auto built = graph::build_csr(list, graph::CsrBuildOptions{});
  return graph::Csr::from_vectors(std::move(built.indptr), built.indices, n);
}

ModelOptions options_of(ModelKind kind) {
  return {.kind = kind,
          .num_layers = 3,
          .in_features = 24,
          .hidden = 32,
          .num_classes = 5,
          .dropout = 0,
          .heads = kind == ModelKind::kGat ? 2 : 0};
}

class CudaModels : public ::testing::TestWithParam<ModelKind> {};

TEST_P(CudaModels, ForwardAndGradientsEqualTheCpus) {
  LOOM_REQUIRE_GPU();
  const graph::Csr csr = random_graph(2000, 16000, 7);
  const auto batch =
      sample::NeighborSampler(csr, {10, 5, 3}).sample(std::vector<std::int64_t>{1, 5, 9, 200, 777, 1500}, 3);
  std::vector<MessageGraph> cpu_graphs, gpu_graphs;
  for (const auto& block : batch.blocks) {
    cpu_graphs.push_back(MessageGraph::from_block(block));
    gpu_graphs.push_back(cpu_graphs.back().to(torch::kCUDA));
  }
  torch::manual_seed(11);
  const auto x = torch::randn({static_cast<std::int64_t>(batch.input_nodes.size()), 24});
  torch::manual_seed(5);
  GnnModel cpu(options_of(GetParam()));
  torch::manual_seed(5);
  GnnModel gpu(options_of(GetParam()));
  gpu.to(torch::kCUDA);

  const auto out_cpu = cpu.forward(x, cpu_graphs);
  const auto out_gpu = gpu.forward(x.to(torch::kCUDA), gpu_graphs);
  ASSERT_TRUE(out_gpu.is_cuda());
  EXPECT_LT(relative_difference(out_gpu, out_cpu), kTolerance);
  out_cpu.logsumexp(1).sum().backward();
  out_gpu.logsumexp(1).sum().backward();
  const auto cpu_params = cpu.named_parameters(), gpu_params = gpu.named_parameters();
  for (const auto& p : cpu_params) {
    const auto& g = gpu_params[p.key()];
    ASSERT_TRUE(g.grad().defined()) << p.key();
    EXPECT_LT(relative_difference(g.grad(), p.value().grad()), kTolerance) << p.key();
  }
}

INSTANTIATE_TEST_SUITE_P(AllKinds, CudaModels, ::testing::Values(ModelKind::kSage, ModelKind::kGcn, ModelKind::kGat),
                         [](const auto& info) { return std::string(model_kind_name(info.param)); });

TEST(CudaAggregate, EveryKindEqualsTheCpuKernelWithGradients) {
  LOOM_REQUIRE_GPU();
  const graph::Csr csr = random_graph(500, 4000, 3);
  const auto batch = sample::NeighborSampler(csr, {8}).sample(std::vector<std::int64_t>{0, 3, 4, 10, 99, 400}, 1);
  const auto graph = MessageGraph::from_block(batch.blocks[0]);
  for (const Aggregation kind : {Aggregation::kSum, Aggregation::kMean, Aggregation::kGcn}) {
    const auto x = torch::randn({graph.num_src(), 7}).requires_grad_(true);
    const auto xg = x.detach().to(torch::kCUDA).requires_grad_(true);
    const auto out = aggregate(graph, x, kind), out_gpu = aggregate(graph.to(torch::kCUDA), xg, kind);
    EXPECT_LT(relative_difference(out_gpu, out), kTolerance) << static_cast<int>(kind);
    const auto weight = torch::randn(out.sizes());
    (out * weight).sum().backward();
    (out_gpu * weight.to(torch::kCUDA)).sum().backward();
    EXPECT_LT(relative_difference(xg.grad(), x.grad()), kTolerance) << static_cast<int>(kind);
  }
}

TEST(CudaMessageGraph, TransposedOnTheGpuEqualsTheCpusAndPinnedGraphsCopyUnchanged) {
  LOOM_REQUIRE_GPU();
  const graph::Csr csr = random_graph(800, 6000, 5);
  const auto batch = sample::NeighborSampler(csr, {6, 4}).sample(std::vector<std::int64_t>{2, 8, 64, 300, 512}, 2);
  for (const auto& block : batch.blocks) {
    const auto graph = MessageGraph::from_block(block);
    const auto pinned = MessageGraph::from_block(block, /*pinned=*/true);
    EXPECT_TRUE(pinned.indptr().is_pinned());
    EXPECT_TRUE(pinned.indices().is_pinned());
    const auto on_gpu = pinned.to(torch::Device(torch::kCUDA, 0));
    torch::cuda::synchronize();
    EXPECT_TRUE(torch::equal(on_gpu.indices().cpu(), graph.indices()));
    const TransposedCsr& gpu = on_gpu.transposed();
    const TransposedCsr& cpu = graph.transposed();
    ASSERT_TRUE(gpu.t_dst.is_cuda());
    EXPECT_TRUE(torch::equal(gpu.t_indptr.cpu(), cpu.t_indptr));
    EXPECT_TRUE(torch::equal(gpu.t_dst.cpu(), cpu.t_dst));
    EXPECT_TRUE(torch::equal(gpu.t_edge.cpu(), cpu.t_edge));
  }
}

}  // namespace
}  // namespace loom::nn

namespace loom::train {
namespace {

// The tier holds own rows 2 and 0; the batch reads own rows 0, 1, 2 at positions 2, 0, 1 (as
// tests/loader/device_features_test.cpp does on the CPU), through the copy stream.
TEST(CudaDeviceFeatures, TierRowsAndStagedRowsAssembleOnTheGpuAsOnTheCpu) {
  LOOM_REQUIRE_GPU();
  const auto local = feature::RowTable::owned(std::vector<float>{0, 1, 10, 11, 20, 21}, 2);
  const std::vector<double> score{0.5, 0.1, 0.9};
  auto world = testing::single_rank_world();
  const loader::DeviceFeatures device(torch::Device(torch::kCUDA, 0), local, feature::HotTier::hottest(score, 2),
                                      &world);
  const comm::CommStats before = world.stats();
  auto host = device.host_buffer(3, 2).fill_(-1);
  EXPECT_TRUE(host.is_pinned());
  host[0] = torch::tensor({10.0f, 11.0f});
  feature::TierRows tier_rows;
  tier_rows.positions = {2, 1};
  tier_rows.slots = {device.tier().slot(0), device.tier().slot(2)};
  tier_rows.staged = {0};
  torch::Tensor x;
  const loader::CopiesDone done = device.copy_stream().run([&] { x = device.assemble(host, tier_rows); });
  const std::vector<torch::Tensor> used{x};
  done.wait(used);
  ASSERT_TRUE(x.is_cuda());
  EXPECT_TRUE(torch::equal(x.cpu(), torch::tensor({10.0f, 11.0f, 20.0f, 21.0f, 0.0f, 1.0f}).view({3, 2})));
  const comm::CommStats moved = world.stats() - before;
  EXPECT_EQ(moved[comm::Channel::device].bytes_sent, 1u * 2 * 4 + 5 * 8) << "the staged row and three index lists";
  EXPECT_EQ(moved.total().bytes_sent, 0u) << "nothing crossed ranks";
}

// As tests/loader/device_features_test.cpp on the CPU: the tier holds own row 2, own rows 0 and 1
// are read in place from pinned host memory, a remote row is staged.
TEST(CudaDeviceFeatures, MappedOwnRowsAreReadInPlaceAsOnTheCpu) {
  LOOM_REQUIRE_GPU();
  const auto local = feature::RowTable::owned(std::vector<float>{0, 1, 10, 11, 20, 21}, 2);
  const std::vector<double> score{0.1, 0.2, 0.9};
  auto world = testing::single_rank_world();
  const loader::DeviceFeatures device(torch::Device(torch::kCUDA, 0), local, feature::HotTier::hottest(score, 1),
                                      &world, loader::HostReads::kMapped);
  ASSERT_TRUE(device.maps_own_rows());
  EXPECT_TRUE(device.host_rows(local).data() != local.data()) << "a pinned copy, the one the GPU reads";
  const comm::CommStats before = world.stats();
  auto host = device.host_buffer(1, 2).fill_(-1);
  host[0] = torch::tensor({7.0f, 8.0f});
  feature::TierRows tier_rows;
  tier_rows.positions = {1};
  tier_rows.slots = {device.tier().slot(2)};
  tier_rows.mapped_positions = {3, 0};
  tier_rows.mapped_rows = {0, 1};
  tier_rows.staged = {2};
  torch::Tensor x;
  const loader::CopiesDone done = device.copy_stream().run([&] { x = device.assemble(host, tier_rows); });
  const std::vector<torch::Tensor> used{x};
  done.wait(used);
  ASSERT_TRUE(x.is_cuda());
  EXPECT_TRUE(torch::equal(x.cpu(), torch::tensor({10.0f, 11.0f, 20.0f, 21.0f, 7.0f, 8.0f, 0.0f, 1.0f}).view({4, 2})));
  const comm::CommStats moved = world.stats() - before;
  EXPECT_EQ(moved[comm::Channel::device].bytes_sent, 1u * 2 * 4 + 2 * 2 * 4 + 7 * 8)
      << "the staged row, the two rows read in place and five index lists";
}

TEST(CudaDevice, AGpuThatDoesNotExistIsNamed) {
  LOOM_REQUIRE_GPU();
  try {
    nn::resolve_device(nn::parse_device_choice("cuda:64"), 0);
    FAIL() << "cuda:64 must be refused";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no such GPU"), std::string::npos) << e.what();
  }
  const auto memory = nn::device_memory(torch::Device(torch::kCUDA, 0));
  ASSERT_TRUE(memory.has_value()) << "a CUDA build reads the GPU's memory";
  EXPECT_GT(memory->total_bytes, 0);
  EXPECT_LE(memory->free_bytes, memory->total_bytes);
}

}  // namespace
}  // namespace loom::train
