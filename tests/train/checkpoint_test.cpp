// Checkpoints: the newest is what resuming loads, and `keep` removes all but the newest N.

#include <gtest/gtest.h>

#include <filesystem>

#include "loom/train/checkpoint.hpp"
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

}  // namespace
}  // namespace loom::train
