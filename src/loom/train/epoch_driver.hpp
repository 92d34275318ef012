// The one epoch loop of every training task: node classification and link prediction on the
// loader's batches (train/minibatch) and full-graph training (train/fullgraph). For each epoch
// from the start point the task trains it and returns its record; the driver asks the task to
// score the held-out splits where --eval-every says, keeps the record (the run's report, the
// metrics log on rank 0, the task's log line), agrees with every rank on a stop signal, saves
// the checkpoint that is due or that a signal asks for, and ends the loop on a signal or on the
// early stop the task's evaluation asks for. A task is what differs: how an epoch trains, what an
// evaluation scores, what a checkpoint holds; a new task implements EpochTask, not the loop.
// run_epochs() is collective over the world.
#pragma once

#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "loom/comm/communicator.hpp"
#include "loom/core/metrics.hpp"
#include "loom/train/run_options.hpp"

namespace loom::train {

// What an epoch's training returns: its record, or none where a signal stopped it before its
// last step (the task has then saved and said what it needed to go on: the loop ends), and the
// signal any rank was asked to stop by during the epoch (0: none, or not looked at).
struct TrainedEpoch {
  std::optional<nlohmann::json> record;
  int stopped_by = 0;
};

class EpochTask {
 public:
  virtual ~EpochTask() = default;
  // Trains epoch `epoch` (0-based).
  virtual TrainedEpoch train(int epoch) = 0;
  // Scores the held-out splits after epoch `epoch` into its `record` (called where --eval-every
  // asks); returns whether the run stops early here.
  virtual bool evaluate(int epoch, nlohmann::json& record) = 0;
  // The epoch's line, on rank 0 unless --quiet.
  virtual void log(const nlohmann::json& record) const = 0;
  // Saves the run's state after `epochs_done` epochs, with `records` so far. Tasks that keep no
  // checkpoints refuse --checkpoint-dir when their options are checked, so it is never called.
  virtual void save(int epochs_done, const std::vector<nlohmann::json>& records);
};

// What the loop runs by: epochs and evaluation schedule, checkpoints, --quiet.
struct EpochSchedule {
  const RunOptions& run;
  const CheckpointOptions& checkpoint;
  bool quiet = false;
};

struct EpochsRun {
  int epochs_done = 0;  // the epochs trained whole, counting those before a resume
  int stopped_by = 0;   // the signal that stopped the run, or 0
  bool early_stop = false;
};

// Runs epochs [start_epoch, run.epochs) of `task`, appending each record to `records` and, on
// rank 0, to `metrics`.
EpochsRun run_epochs(EpochTask& task, const EpochSchedule& schedule, int start_epoch,
                     std::vector<nlohmann::json>& records, core::MetricsLog& metrics, const comm::Communicator& world);

}  // namespace loom::train
