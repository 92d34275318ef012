#include "loom/train/minibatch/minibatch_trainer.hpp"

#include <filesystem>

#include "loom/format/npy.hpp"
#include "loom/graph/generate/sbm.hpp"
#include "support/single_rank_world.hpp"
#include "support/test_support.hpp"

namespace loom::train {
namespace {

// A small planted-partition graph whose features alone are weak, so the graph must help.
graph::generate::SbmOptions small_sbm() {
  graph::generate::SbmOptions o;
  o.nodes = 1200;
  o.classes = 4;
  o.avg_degree = 12;
  o.homophily = 0.9;
  o.feat_dim = 16;
  o.feat_noise = 0.6;
  o.train = 0.3;
  o.valid = 0.2;
  o.seed = 3;
  return o;
}

std::string make_sbm(const test::ScratchDir& dir, const std::string& name = "sbm") {
  const std::string path = dir / name;
  graph::generate::generate_sbm_store(small_sbm(), path, {});
  return path;
}

MinibatchOptions small_options(const std::string& store) {
  MinibatchOptions o;
  o.store = store;
  o.model.num_layers = 2;
  o.model.hidden = 32;
  o.model.dropout = 0.1;
  o.fanouts = {10, 5};
  o.batch_size = 128;
  o.run.epochs = 6;
  o.run.lr = 0.01;
  o.run.rank.threads = 2;
  o.output.quiet = true;
  return o;
}

// Large steps (the validation score goes up and down), exact per-epoch evaluation, and the weights
// of the best validation epoch kept.
MinibatchOptions selecting_options(const std::string& store, int epochs) {
  auto o = small_options(store);
  o.run.epochs = epochs;
  o.run.lr = 0.05;
  o.evaluation.mode = EvalMode::kExact;
  o.evaluation.selection = Selection::kBestValid;
  return o;
}

class MinibatchTrainer : public ::testing::Test {};

TEST_F(MinibatchTrainer, SamplingThreadsDrawTheSameBatches) {
  test::ScratchDir dir;
  auto world = testing::single_rank_world();
  auto options = small_options(make_sbm(dir));
  options.run.epochs = 2;
  options.evaluation.exact = false;
  options.data_path.sample_workers = 1;
  const auto one = run_minibatch(options, world);
  options.data_path.sample_workers = 3;
  const auto three = run_minibatch(options, world);
  for (std::size_t e = 0; e < one.epochs.size(); ++e) {
    EXPECT_EQ(one.epochs[e]["loss"].get<double>(), three.epochs[e]["loss"].get<double>()) << "epoch " << e + 1;
    EXPECT_EQ(one.epochs[e]["sampled_edges"], three.epochs[e]["sampled_edges"]) << "epoch " << e + 1;
  }
}

TEST_F(MinibatchTrainer, MaxStepsCutsTheEpochAndProjectsItsWholeTime) {
  test::ScratchDir dir;
  auto world = testing::single_rank_world();
  auto options = small_options(make_sbm(dir));
  options.run.epochs = 1;
  options.max_steps = 1;
  const auto report = run_minibatch(options, world);
  const auto& epoch = report.epochs.back();
  EXPECT_EQ(epoch["steps"].get<int>(), 1);
  EXPECT_EQ(epoch["full_steps"].get<int>(), 3);  // 360 training nodes in batches of 128
  EXPECT_NEAR(epoch["projected_epoch_seconds"].get<double>(), 3 * epoch["epoch_seconds"].get<double>(), 1e-9);
}

// Multi-label: each node carries its class and a "class < 2" label (5 label columns, 0/1), so the
// trainer uses binary cross-entropy and reports micro-F1.
TEST_F(MinibatchTrainer, MultiLabelGraphsTrainWithBinaryCrossEntropy) {
  test::ScratchDir dir;
  const graph::generate::SbmOptions o = small_sbm();
  auto data = graph::generate::generate_sbm(o);
  data.num_classes = 5;
  data.multi_label.assign(static_cast<std::size_t>(o.nodes) * 5, 0);
  for (std::int64_t v = 0; v < o.nodes; ++v) {
    data.multi_label[v * 5 + data.label[v]] = 1;
    data.multi_label[v * 5 + 4] = data.label[v] < 2;
  }
  data.label.clear();
  graph::write_graph_store(data, dir / "multi", {});
  auto world = testing::single_rank_world();
  auto options = small_options(dir / "multi");
  options.run.epochs = 15;
  const auto report = run_minibatch(options, world);
  EXPECT_EQ(report.scoring, scores::ScoreKind::kMicroF1);
  EXPECT_TRUE(report.epochs.back().contains("train_micro_f1"));
  EXPECT_GT(report.final_test, 0.85) << "exact micro-F1";
}

TEST_F(MinibatchTrainer, SageLearnsPlantedPartitionBeyondFeatures) {
  test::ScratchDir dir;
  auto world = testing::single_rank_world();
  const auto report = run_minibatch(small_options(make_sbm(dir)), world);
  ASSERT_EQ(report.epochs.size(), 6u);
  EXPECT_LT(report.epochs.back()["loss"].get<double>(), report.epochs.front()["loss"].get<double>());
  EXPECT_GT(report.final_test, 0.9) << "exact test accuracy";
  EXPECT_EQ(report.scoring, scores::ScoreKind::kAccuracy);
  EXPECT_GT(report.epochs.back()["rows_local"].get<std::int64_t>(), 0);
  EXPECT_EQ(report.epochs.back()["rows_remote"].get<std::int64_t>(), 0);  // one rank owns every row
}

TEST_F(MinibatchTrainer, GcnAndGatTrainToo) {
  test::ScratchDir dir;
  auto world = testing::single_rank_world();
  for (const auto kind : {nn::ModelKind::kGcn, nn::ModelKind::kGat}) {
    auto o = small_options(make_sbm(dir, std::string("g").append(nn::model_kind_name(kind))));
    o.model.kind = kind;
    o.run.epochs = 4;
    EXPECT_GT(run_minibatch(o, world).final_test, 0.8) << nn::model_kind_name(kind);
  }
}

TEST_F(MinibatchTrainer, PipelinedAndSynchronousRunsAgree) {
  test::ScratchDir dir;
  auto world = testing::single_rank_world();
  auto o = small_options(make_sbm(dir));
  o.run.epochs = 2;
  o.evaluation.exact = false;
  o.data_path.pipeline_depth = 0;
  const auto sync = run_minibatch(o, world);
  o.data_path.pipeline_depth = 3;
  const auto piped = run_minibatch(o, world);
  for (int e = 0; e < 2; ++e)
    EXPECT_DOUBLE_EQ(sync.epochs[e]["loss"].get<double>(), piped.epochs[e]["loss"].get<double>());
}

TEST_F(MinibatchTrainer, ResumeContinuesToTheSameResult) {
  test::ScratchDir dir;
  auto world = testing::single_rank_world();
  auto o = small_options(make_sbm(dir));
  o.run.epochs = 4;
  o.evaluation.exact = false;
  const auto straight = run_minibatch(o, world);
  o.checkpoint.dir = dir / "ckpt";
  o.checkpoint.every = 2;
  o.run.epochs = 2;
  run_minibatch(o, world);
  o.run.epochs = 4;
  o.checkpoint.resume = true;
  const auto resumed = run_minibatch(o, world);
  ASSERT_EQ(resumed.epochs.size(), 4u);
  EXPECT_DOUBLE_EQ(resumed.epochs[3]["loss"].get<double>(), straight.epochs[3]["loss"].get<double>());
  EXPECT_DOUBLE_EQ(resumed.final_test, straight.final_test);
}

TEST_F(MinibatchTrainer, WritesPredictionsKeyedByOriginalIds) {
  test::ScratchDir dir;
  auto world = testing::single_rank_world();
  auto o = small_options(make_sbm(dir));
  o.run.epochs = 1;
  o.output.dir = dir / "out";
  o.output.save_embeddings = true;
  run_minibatch(o, world);
  const auto pred = format::NpyArray::map(dir / "out/predictions.npy");
  const auto ids = format::NpyArray::map(dir / "out/node_ids.npy");
  const auto emb = format::NpyArray::map(dir / "out/embeddings.npy");
  EXPECT_EQ(pred.size(), 1200);
  EXPECT_EQ(ids.size(), 1200);
  EXPECT_EQ(emb.rows(), 1200);
  EXPECT_EQ(emb.cols(), 32);
}

// The epoch with the best validation score (ties: lower validation loss) is the one whose weights
// are evaluated at the end: with exact per-epoch evaluation, the final exact validation score is
// that epoch's. `last` keeps the last epoch's.
TEST_F(MinibatchTrainer, BestValidSelectionEvaluatesTheBestEpochsWeights) {
  test::ScratchDir dir;
  auto world = testing::single_rank_world();
  auto o = selecting_options(make_sbm(dir), 8);
  o.evaluation.selection = Selection::kLast;
  const auto last = run_minibatch(o, world);
  EXPECT_DOUBLE_EQ(last.final_valid, last.epochs.back()["valid_accuracy"].get<double>());
  o.evaluation.selection = Selection::kBestValid;
  const auto best = run_minibatch(o, world);
  std::size_t pick = 0;
  for (std::size_t e = 1; e < best.epochs.size(); ++e) {
    const double v = best.epochs[e]["valid_accuracy"], b = best.epochs[pick]["valid_accuracy"];
    if (v > b || (v == b && best.epochs[e]["valid_loss"] < best.epochs[pick]["valid_loss"])) pick = e;
  }
  EXPECT_DOUBLE_EQ(best.final_valid, best.epochs[pick]["valid_accuracy"].get<double>()) << "best epoch " << pick + 1;
  EXPECT_DOUBLE_EQ(best.final_test, best.epochs[pick]["test_accuracy"].get<double>());
  EXPECT_TRUE(best.epochs[pick]["best_valid"].get<bool>());
}

TEST_F(MinibatchTrainer, EarlyStoppingEndsPatienceEpochsAfterTheBest) {
  test::ScratchDir dir;
  auto world = testing::single_rank_world();
  auto o = selecting_options(make_sbm(dir), 40);
  o.evaluation.patience = 3;
  const auto report = run_minibatch(o, world);
  ASSERT_LT(report.epochs.size(), 40u) << "a 1200-node graph at lr 0.05 stops improving well before 40 epochs";
  int best = 0;
  for (const auto& e : report.epochs)
    if (e.value("best_valid", false)) best = e["epoch"];
  EXPECT_EQ(report.epochs.back()["epoch"].get<int>() - best, 3);
  o.evaluation.selection = Selection::kLast;
  o.run.eval.every = 0;
  EXPECT_THROW(run_minibatch(o, world), Error) << "patience needs validation scores";
}

TEST_F(MinibatchTrainer, ResumeSelectsTheSameEpochAsAnUninterruptedRun) {
  test::ScratchDir dir;
  auto world = testing::single_rank_world();
  auto o = selecting_options(make_sbm(dir), 6);
  const auto straight = run_minibatch(o, world);
  o.checkpoint.dir = dir / "ckpt";
  o.checkpoint.every = 1;
  o.run.epochs = 3;
  run_minibatch(o, world);
  o.run.epochs = 6;
  o.checkpoint.resume = true;
  const auto resumed = run_minibatch(o, world);
  EXPECT_DOUBLE_EQ(resumed.final_valid, straight.final_valid);
  EXPECT_DOUBLE_EQ(resumed.final_test, straight.final_test);
}

TEST_F(MinibatchTrainer, FanoutsMustMatchLayers) {
  test::ScratchDir dir;
  auto world = testing::single_rank_world();
  auto o = small_options(make_sbm(dir));
  o.fanouts = {15, 10, 5};
  try {
    run_minibatch(o, world);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--fanouts"), std::string::npos) << e.what();
  }
}

TEST_F(MinibatchTrainer, StoreWithoutSplitsIsAClearError) {
  test::ScratchDir dir;
  auto world = testing::single_rank_world();
  graph::GraphData g;
  g.indptr = {0, 1, 2};
  g.indices = {1, 0};
  g.feat = {1, 2};
  g.feat_dim = 1;
  g.label = {0, 1};
  g.num_classes = 2;
  graph::write_graph_store(g, dir / "nosplit", {});
  try {
    run_minibatch(small_options(dir / "nosplit"), world);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("train"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace loom::train
