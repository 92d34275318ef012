// Checkpoints: the newest is what resuming loads, and `keep` removes all but the newest N; a
// checkpoint mid-epoch sits between its epoch and the next.

#include <gtest/gtest.h>

#include <filesystem>

#include "loom/core/error.hpp"
#include "loom/train/checkpoint.hpp"
#include "loom/train/checkpoint_state.hpp"
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

}  // namespace
}  // namespace loom::train
