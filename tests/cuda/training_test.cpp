// Mini-batch training on the GPU (one rank): the same recipe and seed reach the CPU's accuracy;
// every batch's copies to the device are counted on the device channel, and SALIENT++'s device
// tier (--device-rows) lowers them as it grows; own rows read in place (--host-reads mapped) train
// as staged ones do; a device plan that does not fit stops the run with an error naming the option.
#include <gtest/gtest.h>

#include "cuda_support.hpp"
#include "loom/core/error.hpp"
#include "loom/graph/generate/sbm.hpp"
#include "loom/train/minibatch/minibatch_trainer.hpp"
#include "support/test_support.hpp"
#include "support/single_rank_world.hpp"

namespace loom::train {
namespace {

std::string make_sbm(const test::ScratchDir& dir) {
  graph::generate::SbmOptions o;
  o.nodes = 3000;
  o.classes = 4;
  o.avg_degree = 12;
  o.homophily = 0.9;
  o.feat_dim = 32;
  o.feat_noise = 0.6;
  o.train = 0.3;
  o.valid = 0.2;
  o.seed = 3;
  const std::string path = dir / "sbm";
  graph::generate::generate_sbm_store(o, path, {});
  return path;
}

MinibatchOptions recipe(const std::string& store, const std::string& device) {
  MinibatchOptions o;
  o.store = store;
  o.model.num_layers = 2;
  o.model.hidden = 64;
  o.model.dropout = 0.1;
  o.fanouts = {10, 5};
  o.batch_size = 128;
  o.run.epochs = 5;
  o.run.lr = 0.01;
  o.run.rank.threads = 2;
  o.run.rank.device = nn::parse_device_choice(device);
  o.output.quiet = true;
  return o;
}

std::uint64_t device_bytes(const nlohmann::json& epoch) {
  return epoch["comm"]["sum"]["device"]["bytes_sent"].get<std::uint64_t>();
}

TEST(CudaTraining, SameRecipeAndSeedReachTheCpusAccuracy) {
  LOOM_REQUIRE_GPU();
  test::ScratchDir dir;
  const std::string store = make_sbm(dir);
  auto world = testing::single_rank_world();
  const MinibatchReport cpu = run_minibatch(recipe(store, "cpu"), world);
  const MinibatchReport gpu = run_minibatch(recipe(store, "cuda"), world);
  EXPECT_GT(cpu.final_test, 0.7);
  EXPECT_NEAR(gpu.final_test, cpu.final_test, 0.02) << "cpu " << cpu.final_test << ", cuda " << gpu.final_test;
  EXPECT_NEAR(gpu.epochs.back()["loss"].get<double>(), cpu.epochs.back()["loss"].get<double>(), 0.05);
  EXPECT_EQ(device_bytes(cpu.epochs.back()), 0u);
  EXPECT_GT(device_bytes(gpu.epochs.back()), 0u);
}

TEST(CudaTraining, DeviceRowsLowerTheBytesCopiedToTheDevice) {
  LOOM_REQUIRE_GPU();
  test::ScratchDir dir;
  const std::string store = make_sbm(dir);
  auto world = testing::single_rank_world();
  std::vector<std::uint64_t> bytes;
  std::vector<std::int64_t> rows_on_device;
  for (const double fraction : {0.0, 0.25, 1.0}) {
    auto o = recipe(store, "cuda");
    o.run.epochs = 1;
    o.evaluation.exact = false;
    o.run.eval.every = 0;
    o.data_path.device_rows = fraction;
    const auto report = run_minibatch(o, world);
    bytes.push_back(device_bytes(report.epochs.back()));
    rows_on_device.push_back(report.epochs.back()["rows_device"].get<std::int64_t>());
  }
  EXPECT_GT(bytes[0], bytes[1]);
  EXPECT_GT(bytes[1], bytes[2]);
  EXPECT_EQ(rows_on_device[0], 0);
  EXPECT_GT(rows_on_device[1], 0);
  // A quarter of the rows, hottest by VIP first, serve more than a quarter of the reads.
  EXPECT_GT(static_cast<double>(rows_on_device[1]), 0.25 * static_cast<double>(rows_on_device[2]));
}

TEST(CudaTraining, MappedHostReadsTrainAsStagedOnes) {
  LOOM_REQUIRE_GPU();
  test::ScratchDir dir;
  const std::string store = make_sbm(dir);
  auto world = testing::single_rank_world();
  auto o = recipe(store, "cuda");
  o.data_path.device_rows = 0.25;
  const MinibatchReport staged = run_minibatch(o, world);
  o.data_path.host_reads = loader::HostReads::kMapped;
  const MinibatchReport mapped = run_minibatch(o, world);
  EXPECT_NEAR(mapped.final_test, staged.final_test, 0.02);
  EXPECT_NEAR(mapped.epochs.back()["loss"].get<double>(), staged.epochs.back()["loss"].get<double>(), 0.05);
  EXPECT_EQ(mapped.epochs.back()["rows_device"], staged.epochs.back()["rows_device"]);
  EXPECT_GT(device_bytes(mapped.epochs.back()), 0u) << "rows read in place are counted";
}

TEST(CudaTraining, ADevicePlanOverItsLimitStopsTheRunNamingTheOption) {
  LOOM_REQUIRE_GPU();
  test::ScratchDir dir;
  const std::string store = make_sbm(dir);
  auto world = testing::single_rank_world();
  auto o = recipe(store, "cuda");
  o.data_path.device_rows = 1;
  o.data_path.device_memory_limit = 64 * 1024;
  try {
    run_minibatch(o, world);
    FAIL() << "a 64 KiB device limit must be refused";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--device-memory-limit"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("device rows"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace loom::train
