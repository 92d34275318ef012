// The up-front memory plan: sizes parse with units, a run whose estimate exceeds --memory-limit
// stops before any training with the estimate, its parts and the options that shrink them, the
// parts follow the options (cache, pipeline depth, hidden width) and, for full-graph training,
// the layout, and a run that fits reports its measured peak beside the estimate.
#include "loom/train/fullgraph/fullgraph_memory.hpp"
#include "loom/train/minibatch/minibatch_memory.hpp"

#include <fstream>
#include <sstream>

#include "loom/core/error.hpp"
#include "loom/core/memory.hpp"
#include "loom/graph/generate/sbm.hpp"
#include "loom/train/minibatch/minibatch_trainer.hpp"
#include "support/single_rank_world.hpp"
#include "support/test_support.hpp"

namespace loom::train {
namespace {

std::string make_planning_sbm(const test::ScratchDir& dir) {
  graph::generate::SbmOptions o;
  o.nodes = 2000;
  o.classes = 4;
  o.avg_degree = 12;
  o.feat_dim = 32;
  o.train = 0.3;
  o.valid = 0.2;
  const std::string path = dir / "sbm";
  graph::generate::generate_sbm_store(o, path, {});
  return path;
}

MinibatchOptions planning_options(const std::string& store) {
  MinibatchOptions o;
  o.store = store;
  o.model.num_layers = 2;
  o.model.hidden = 64;
  o.fanouts = {10, 5};
  o.batch_size = 256;
  o.run.epochs = 1;
  o.run.rank.threads = 2;
  o.output.quiet = true;
  return o;
}

// The model of `o` for the data's widths, with `hidden` units.
nn::GnnModel model_for(const MinibatchOptions& o, const loader::TrainingData& data, std::int64_t hidden) {
  nn::ModelOptions m = o.model;
  m.in_features = data.feat_dim;
  m.num_classes = data.num_classes;
  m.hidden = hidden;
  return nn::GnnModel(m);
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::int64_t part(const MemoryPlan& plan, const std::string& name) {
  for (const auto& p : plan.parts)
    if (p.name == name) return p.bytes;
  ADD_FAILURE() << "no part " << name;
  return -1;
}

TEST(MemoryPlan, SizesParseWithBinaryUnits) {
  EXPECT_EQ(core::parse_memory_size("1048576", "--memory-limit"), 1 << 20);
  EXPECT_EQ(core::parse_memory_size("512M", "--memory-limit"), std::int64_t{512} << 20);
  EXPECT_EQ(core::parse_memory_size("4G", "--memory-limit"), std::int64_t{4} << 30);
  EXPECT_EQ(core::parse_memory_size("1.5GiB", "--memory-limit"), std::int64_t{3} << 29);
  EXPECT_EQ(core::parse_memory_size("2k", "--memory-limit"), 2048);
  for (const char* bad : {"", "lots", "-1G", "4X", "4GG", "nan"}) {
    try {
      core::parse_memory_size(bad, "--memory-limit");
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("--memory-limit"), std::string::npos) << e.what();
    }
  }
}

TEST(MemoryPlan, AnEstimateOverTheLimitNamesItsPartsAndWhatToLower) {
  MemoryPlan plan;
  plan.parts = {{"runtime", 100 << 20, ""},
                {"batches in flight", 300 << 20, "--batch-size, --fanouts"},
                {"static cache", 50 << 20, "--alpha"}};
  EXPECT_NO_THROW(check_memory_plan(plan, 500 << 20, 1));
  try {
    check_memory_plan(plan, 200 << 20, 1);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("--memory-limit"), std::string::npos) << message;
    EXPECT_NE(message.find("450.0 MiB"), std::string::npos) << message;
    EXPECT_NE(message.find("batches in flight 300.0 MiB"), std::string::npos) << message;
    EXPECT_LT(message.find("--batch-size"), message.find("--alpha")) << "largest part first: " << message;
  }
}

TEST(MemoryPlan, MappedFilesAreReportedButNotCountedAgainstTheLimit) {
  MemoryPlan plan;
  plan.parts = {{"runtime", 100 << 20, ""},
                {"topology", std::int64_t{10} << 30, "", Residence::kMappedShared},
                {"own rows", std::int64_t{3} << 30, "", Residence::kMapped},
                {"batches in flight", 50 << 20, "--batch-size"}};
  EXPECT_EQ(plan.resident(), 150 << 20);
  EXPECT_NO_THROW(check_memory_plan(plan, 200 << 20, 8)) << "a graph larger than memory is read from disk";
  const auto record = plan.record();
  EXPECT_EQ(record["resident_bytes"], 150 << 20);
  EXPECT_EQ(record["mapped_bytes"], std::int64_t{13} << 30);
  EXPECT_EQ(record["mapped_parts"], nlohmann::json({"topology", "own rows"}));
  try {
    check_memory_plan(plan, 120 << 20, 1);
    FAIL() << "150 MiB of its own memory does not fit 120 MiB";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("150.0 MiB of its own memory"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("besides 13.0 GiB of mapped files"), std::string::npos) << e.what();
  }
}

TEST(DeviceMemoryPlan, ARankOverItsShareOfTheGpuNamesTheLargestPartsOption) {
  MemoryPlan plan;
  plan.parts = {{"device rows", std::int64_t{6} << 30, "--device-rows"},
                {"model and optimizer", 64 << 20, "--hidden, --layers"}};
  EXPECT_NO_THROW(check_device_memory_plan(plan, 0, std::int64_t{16} << 30, 2, "cuda:0"));
  EXPECT_NO_THROW(check_device_memory_plan(plan, 0, -1, 1, "cuda:0")) << "free memory unknown: no check";
  try {
    check_device_memory_plan(plan, 0, std::int64_t{10} << 30, 2, "cuda:0");
    FAIL() << "6 GiB does not fit half of 10 GiB";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("argument --device-rows"), std::string::npos) << message;
    EXPECT_NE(message.find("cuda:0's free 10.0 GiB shared by 2 ranks"), std::string::npos) << message;
  }
  try {
    check_device_memory_plan(plan, 1 << 30, std::int64_t{80} << 30, 1, "cuda:0");
    FAIL() << "6 GiB does not fit a 1 GiB limit";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("argument --device-memory-limit"), std::string::npos) << e.what();
  }
}

TEST(DeviceMemoryPlan, TheTierGrowsWithDeviceRowsAndTheRestComesFromTheHostPlan) {
  test::ScratchDir dir;
  auto world = testing::single_rank_world();
  auto o = planning_options(make_planning_sbm(dir));
  loader::TrainingData data = loader::open_training_data(o.store, world);
  const MemoryPlan host = plan_minibatch_memory(check(o), data, model_for(o, data, o.model.hidden), 0);
  o.data_path.device_rows = 0.5;
  const MemoryPlan half = plan_device_memory(host, o, data);
  EXPECT_EQ(part(half, "device rows"), 1000 * 32 * 4);
  EXPECT_EQ(part(half, "model and optimizer"), part(host, "model and optimizer"));
  EXPECT_EQ(part(half, "batches in flight"), part(host, "batches in flight"));
  EXPECT_EQ(half.parts.size(), 4u) << "the topology, own rows and caches stay on the host";
}

TEST(MemoryPlan, PartsFollowTheOptions) {
  test::ScratchDir dir;
  auto world = testing::single_rank_world();
  auto o = planning_options(make_planning_sbm(dir));
  loader::TrainingData data = loader::open_training_data(o.store, world);
  const nn::GnnModel narrow = model_for(o, data, o.model.hidden);
  const nn::GnnModel wide = model_for(o, data, 256);

  const MemoryPlan base = plan_minibatch_memory(check(o), data, narrow, 1000);
  EXPECT_EQ(part(base, "runtime"), 1000);
  EXPECT_EQ(part(base, "static cache"), 0) << "one rank owns every row";
  EXPECT_GT(part(base, "topology"), 2000 * 12 * 4);
  EXPECT_EQ(part(base, "own rows"), 2000 * 32 * 4 + 2000 * 8);
  EXPECT_GT(plan_minibatch_memory(check(o), data, wide, 1000).total(), base.total());
  EXPECT_GT(part(plan_minibatch_memory(check(o), data, wide, 1000), "model and optimizer"),
            part(base, "model and optimizer"));
  auto deep = o;
  deep.data_path.pipeline_depth = 8;
  deep.evaluation.exact = false;
  deep.run.eval.every = 0;
  auto shallow = deep;
  shallow.data_path.pipeline_depth = 0;
  EXPECT_EQ(part(plan_minibatch_memory(check(deep), data, narrow, 0), "batches in flight"),
            10 * part(plan_minibatch_memory(check(shallow), data, narrow, 0), "batches in flight"));
  auto grouped = shallow;
  grouped.data_path.superbatch = 3;  // three batches' blocks and float32 rows (the store's dtype) wait
  EXPECT_EQ(part(plan_minibatch_memory(check(grouped), data, narrow, 0), "batches in flight"),
            4 * part(plan_minibatch_memory(check(shallow), data, narrow, 0), "batches in flight"));
}

TEST(MemoryPlan, ARunOverItsLimitStopsBeforeTraining) {
  test::ScratchDir dir;
  auto world = testing::single_rank_world();
  auto o = planning_options(make_planning_sbm(dir));
  o.run.memory_limit = 1 << 20;
  o.output.metrics_path = dir / "metrics.jsonl";
  try {
    run_minibatch(o, world);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--memory-limit"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("runtime"), std::string::npos) << e.what();
  }
  EXPECT_EQ(read_text(dir / "metrics.jsonl").find("\"epoch\""), std::string::npos) << "no epoch ran";
}

TEST(MemoryPlan, ARunThatFitsReportsItsPeakBesideTheEstimate) {
  test::ScratchDir dir;
  auto world = testing::single_rank_world();
  auto o = planning_options(make_planning_sbm(dir));
  o.run.memory_limit = std::int64_t{64} << 30;
  o.output.metrics_path = dir / "metrics.jsonl";
  const auto report = run_minibatch(o, world);
  EXPECT_GT(report.memory_estimate_bytes, 0);
  EXPECT_GT(report.memory_peak_bytes, 0);
  const std::string metrics = read_text(dir / "metrics.jsonl");
  EXPECT_NE(metrics.find("\"event\":\"memory\""), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("\"event\":\"memory_peak\""), std::string::npos) << metrics;
}

TEST(MemoryPlan, FullGraphPartsFollowTheLayout) {
  FullGraphMemoryInputs in;
  in.runtime = 100;
  in.parameters = 1000;
  in.hidden = 10;
  in.layers = 4;
  in.slots = 300;
  in.own = 200;
  in.chunk_rows = {100, 100};
  in.chunk_outside = {50, 30};
  in.chunk_edges = {800, 900};
  in.chunk_graphs = 5000;
  const MemoryPlan graph = plan_fullgraph_memory(in);
  EXPECT_EQ(part(graph, "model and optimizer"), 1000 * 4 * 5);
  EXPECT_EQ(part(graph, "layer buffers"), (300 + 4 * 200) * 40) << "one halo buffer, cross-chunk gradients per layer";
  EXPECT_EQ(part(graph, "chunk graphs"), 5000);
  const std::int64_t saved = 4 * ((2 * 150 + 7 * 100) + (2 * 130 + 7 * 100)) * 40 / 2;
  EXPECT_EQ(part(graph, "activations"), saved) << "CPU kernels make no per-edge messages";
  in.edge_messages = true;
  EXPECT_EQ(part(plan_fullgraph_memory(in), "activations"), saved + 900 * 40) << "the widest chunk's, on a GPU";
  in.edge_messages = false;
  in.historical = true;
  EXPECT_EQ(part(plan_fullgraph_memory(in), "layer buffers"), 4 * (300 + 200) * 40) << "a history per layer";
  in.layers = 8;
  EXPECT_GT(plan_fullgraph_memory(in).total(), graph.total());
}

}  // namespace
}  // namespace loom::train
