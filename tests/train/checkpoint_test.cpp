// Checkpoints: the newest is what resuming loads, and `keep` removes all but the newest N; a
// checkpoint mid-epoch sits between its epoch and the next; epoch totals survive the round trip.

#include <gtest/gtest.h>

#include <filesystem>

#include "loom/core/error.hpp"
#include "loom/train/checkpoint.hpp"
#include "loom/train/checkpoint_state.hpp"
#include "loom/train/minibatch/epoch_stats.hpp"
#include "support/test_support.hpp"

namespace loom::train {
namespace {

TEST(Checkpoint, KeepRemovesAllButTheNewest) {
  const test::ScratchDir scratch;
  const std::string dir = scratch.path() + "/ckpt";
  torch::nn::Linear model(3, 2);
  torch::optim::Adam optimizer(model->parameters(), 0.01);
  for (int epoch = 1; epoch <= 4; ++epoch) save_checkpoint(dir, epoch, *model, optimizer, {{"epoch", epoch}}, {}, 2);
  for (int epoch = 1; epoch <= 4; ++epoch)
    EXPECT_EQ(std::filesystem::exists(dir + "/epoch-" + std::to_string(epoch)), epoch >= 3) << epoch;
  const auto state = read_checkpoint_state(dir);
  ASSERT_TRUE(state);
  EXPECT_EQ(state->at("epochs_done").get<int>(), 4);

  save_checkpoint(dir, 5, *model, optimizer, {}, {}, 0);  // keep = 0: keep all
  EXPECT_TRUE(std::filesystem::exists(dir + "/epoch-3"));
  EXPECT_TRUE(std::filesystem::exists(dir + "/epoch-5"));
}

TEST(Checkpoint, MidEpochCheckpointsOrderBetweenTheirEpochAndTheNext) {
  const test::ScratchDir scratch;
  const std::string dir = scratch.path() + "/ckpt";
  torch::nn::Linear model(3, 2);
  torch::optim::Adam optimizer(model->parameters(), 0.01);
  save_checkpoint(dir, 2, *model, optimizer, {});
  save_checkpoint(dir, {2, 17}, *model, optimizer, {{"epoch_totals", {{1.5, 2.0}}}});
  EXPECT_EQ(CheckpointId(2, 17).name(), "epoch-2-step-17");
  EXPECT_TRUE(std::filesystem::exists(dir + "/epoch-2-step-17/state.json"));
  EXPECT_EQ(newest_intact_checkpoint(dir), CheckpointId(2, 17));
  const CheckpointState state = parse_checkpoint_state(read_checkpoint_state(dir)->dump(), "state.json");
  EXPECT_EQ(state.epochs_done, 2);
  EXPECT_EQ(state.steps_done, 17);
  EXPECT_EQ(state.epoch_totals, (std::vector<std::vector<double>>{{1.5, 2.0}}));
  save_checkpoint(dir, 3, *model, optimizer, {}, {}, 2);  // keeps epoch 3 and the mid-epoch one
  EXPECT_EQ(newest_intact_checkpoint(dir), CheckpointId(3));
  EXPECT_EQ(newest_intact_checkpoint(dir, CheckpointId(2, 99)), CheckpointId(2, 17));
  EXPECT_TRUE(std::filesystem::exists(dir + "/epoch-2-step-17"));
  EXPECT_FALSE(std::filesystem::exists(dir + "/epoch-2"));
  // Names that only look like checkpoints are not.
  std::filesystem::create_directories(dir + "/epoch-9-step-");
  std::filesystem::create_directories(dir + "/epoch-9-step-0");
  std::filesystem::create_directories(dir + "/epoch-x");
  EXPECT_EQ(newest_intact_checkpoint(dir), CheckpointId(3));
}

TEST(EpochTotals, PackedTotalsComeBackExactly) {
  EpochTotals t;
  t.loss_sum = 0.1 + 0.2;
  t.train.correct = 3, t.train.labelled = 4, t.train.loss_sum = 1.25, t.train.nodes = 4;
  t.phases.fetch = 1e-7;
  t.fetched.remote_rows = 123456789012;
  t.fetched.seconds = 2.5;
  t.sampled_edges = 77;
  t.earlier_seconds = 9.75;
  const std::vector<double> packed = pack_totals(t);
  const EpochTotals back = unpack_totals(packed, "state.json");
  EXPECT_EQ(back.loss_sum, t.loss_sum);
  EXPECT_EQ(back.train.pack(), t.train.pack());
  EXPECT_EQ(back.phases.fetch, t.phases.fetch);
  EXPECT_EQ(back.fetched.remote_rows, t.fetched.remote_rows);
  EXPECT_EQ(back.fetched.seconds, t.fetched.seconds);
  EXPECT_EQ(back.sampled_edges, t.sampled_edges);
  EXPECT_EQ(back.earlier_seconds, t.earlier_seconds);
  EXPECT_EQ(pack_totals(back), packed);
  // From a file: a wrong count, or a count that is not a whole number, is an error naming it.
  EXPECT_THROW(unpack_totals(std::span(packed).first(3), "state.json"), Error);
  std::vector<double> bad = packed;
  for (double& v : bad) v = 1e300;
  EXPECT_THROW(unpack_totals(bad, "state.json"), Error);
}

}  // namespace
}  // namespace loom::train
