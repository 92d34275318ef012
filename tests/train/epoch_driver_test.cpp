// The one epoch loop (train/epoch_driver.hpp) with a task that only records what it is asked:
// which epochs train, which are evaluated (--eval-every), where checkpoints fall, and how an early
// stop and a signal mid-epoch end the loop.
#include "loom/train/epoch_driver.hpp"

#include <vector>

#include <gtest/gtest.h>

#include "loom/core/error.hpp"
#include "support/single_rank_world.hpp"

namespace loom::train {
namespace {

class RecordingTask : public EpochTask {
 public:
  int stop_early_after = -1;   // evaluate() asks to stop after this epoch (0-based)
  int stopped_mid_epoch = -1;  // train() returns no record for this epoch, as a signal mid-epoch does
  std::vector<int> trained, evaluated, saved;
  mutable int logged = 0;

  TrainedEpoch train(int epoch) override {
    trained.push_back(epoch);
    if (epoch == stopped_mid_epoch) return {std::nullopt, 15};
    return {nlohmann::json{{"epoch", epoch + 1}}};
  }
  bool evaluate(int epoch, nlohmann::json& record) override {
    evaluated.push_back(epoch);
    record["valid"] = 0.5;
    return epoch == stop_early_after;
  }
  void log(const nlohmann::json&) const override { ++logged; }
  void save(int epochs_done, const std::vector<nlohmann::json>& records) override {
    saved.push_back(epochs_done);
    EXPECT_EQ(records.size(), static_cast<std::size_t>(epochs_done));
  }
};

// Runs `task` for `epochs` epochs from `start`, evaluating every `eval_every`, with checkpoints
// due every `checkpoint_every` epochs (-1: no checkpoint folder), into `records`.
EpochsRun run_task(RecordingTask& task, int epochs, int eval_every, int checkpoint_every, bool quiet, int start,
                   std::vector<nlohmann::json>& records) {
  RunOptions run;
  run.epochs = epochs;
  run.eval.every = eval_every;
  CheckpointOptions checkpoint;
  if (checkpoint_every >= 0) checkpoint = {.dir = "unused-dir", .every = checkpoint_every};
  core::MetricsLog metrics;
  return run_epochs(task, {run, checkpoint, quiet}, start, records, metrics, testing::single_rank_world());
}

TEST(EpochDriver, TrainsEachEpochEvaluatesOnScheduleAndCheckpointsWhenDue) {
  RecordingTask task;
  std::vector<nlohmann::json> records;
  const EpochsRun done = run_task(task, 5, 2, 2, true, 0, records);
  EXPECT_EQ(task.trained, (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_EQ(task.evaluated, (std::vector<int>{1, 3, 4}));  // every 2nd epoch and the last
  EXPECT_EQ(task.saved, (std::vector<int>{2, 4}));
  EXPECT_EQ(task.logged, 0);  // quiet
  ASSERT_EQ(records.size(), 5u);
  EXPECT_TRUE(records[1].contains("valid"));
  EXPECT_FALSE(records[2].contains("valid"));
  EXPECT_EQ(done.epochs_done, 5);
  EXPECT_EQ(done.stopped_by, 0);
  EXPECT_FALSE(done.early_stop);
}

TEST(EpochDriver, StartsAtTheResumedEpochAndEndsOnAnEarlyStop) {
  RecordingTask task;
  task.stop_early_after = 3;
  std::vector<nlohmann::json> records;
  const EpochsRun done = run_task(task, 10, 1, -1, false, 2, records);
  EXPECT_EQ(task.trained, (std::vector<int>{2, 3}));
  EXPECT_EQ(task.logged, 2);
  EXPECT_TRUE(task.saved.empty());
  EXPECT_EQ(done.epochs_done, 4);
  EXPECT_TRUE(done.early_stop);
}

TEST(EpochDriver, AnEpochStoppedMidwayEndsTheLoopWithItsSignalAndNoRecord) {
  RecordingTask task;
  task.stopped_mid_epoch = 1;
  std::vector<nlohmann::json> records;
  const EpochsRun done = run_task(task, 4, 1, 0, true, 0, records);
  EXPECT_EQ(task.trained, (std::vector<int>{0, 1}));
  EXPECT_EQ(records.size(), 1u);
  EXPECT_TRUE(task.saved.empty());  // the task saves a mid-epoch stop itself
  EXPECT_EQ(done.epochs_done, 1);
  EXPECT_EQ(done.stopped_by, 15);
}

TEST(EpochDriver, ATaskWithoutCheckpointsRefusesToSave) {
  class NoCheckpoints : public EpochTask {
    TrainedEpoch train(int) override { return {nlohmann::json::object()}; }
    bool evaluate(int, nlohmann::json&) override { return false; }
    void log(const nlohmann::json&) const override {}
  } task;
  EXPECT_THROW(task.save(1, {}), Error);
}

}  // namespace
}  // namespace loom::train
