// The one driver of every training task: node classification and link prediction on the loader's
// batches (train/minibatch) and full-graph training (train/fullgraph).
//
// run_training() owns a run from its start to its end: it opens the rank (the task's options
// checked on every rank together, with the outputs; threads, device, link emulation), lets stop
// signals be recorded instead of ending the process, verifies the store's digests beside the
// setup, opens the task (its data, model, memory plan and resume point), opens the metrics log
// (continued from what the checkpoint recorded of it with --resume), records the memory plan, lets
// the task prepare what needs the log, joins the digest check, removes an earlier run's
// checkpoints under --overwrite, runs the epoch loop and, unless a signal stopped the run, lets the
// task finish (final evaluation, outputs) and records the memory peak.
//
// run_epochs() is the epoch loop. For each epoch
// from the start point the task trains it and returns its record; the driver asks the task to
// score the held-out splits where --eval-every says, keeps the record (the run's report, the
// metrics log on rank 0, the task's log line), agrees with every rank on a stop signal, saves
// the checkpoint that is due or that a signal asks for, and ends the loop on a signal or on the
// early stop the task's evaluation asks for. A task is what differs: how an epoch trains, what an
// evaluation scores, what a checkpoint holds, how it opens and finishes; a new task implements
// TrainingTask (one file), not the loop. Both are collective over the world.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "loom/comm/communicator.hpp"
#include "loom/core/metrics.hpp"
#include "loom/nn/rank_runtime.hpp"
#include "loom/train/memory_plan.hpp"
#include "loom/train/run_options.hpp"
#include "loom/train/training_outputs.hpp"

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

// What every training run reports; each task's report adds its scores.
struct TrainingReport {
  std::vector<nlohmann::json> epochs;  // one record per epoch (also in the metrics log), a resume's earlier ones first
  // Peak resident memory per rank, estimated up front and measured (VmHWM), largest over ranks;
  // 0 where the task plans no memory.
  std::int64_t memory_estimate_bytes = 0, memory_peak_bytes = 0;
  int stopped_by = 0;  // the signal (SIGTERM, SIGINT) that stopped the run before its end, or 0
};

// What a task tells the driver once it has opened on this rank.
struct OpenedTask {
  int start_epoch = 0;                         // with --resume: the epochs the checkpoint holds
  std::optional<core::LogPrefix> metrics_log;  // with --resume: what the metrics log held at the checkpoint
  std::optional<MemoryPlan> memory;            // this rank's memory plan, checked: recorded, its peak measured
  std::string checkpoint_dir;                  // this rank's checkpoints, which --overwrite replaces ("": none)
  nlohmann::json setup;                        // the metrics log's first record, written by rank 0 (null: none)
};

class TrainingTask : public EpochTask {
 public:
  // Checks the task's options (throws Error naming the first bad one); on every rank together.
  virtual void check() = 0;
  // Opens the data and the model on this rank, plans its memory (refusing what would not fit) and,
  // with --resume, loads the newest checkpoint (its earlier records into the report).
  // `runtime_bytes`: resident before anything was opened.
  virtual OpenedTask open(const nn::RankRuntime& runtime, std::int64_t runtime_bytes) = 0;
  // What needs the metrics log before the first epoch (the data path's setup records, the device
  // memory check, the run's first log line).
  virtual void prepare(core::MetricsLog& metrics) = 0;
  // After the last epoch (not after a stop): the weights kept, the final evaluation, the outputs.
  virtual void finish(const EpochsRun& run, core::MetricsLog& metrics) = 0;
};

// Runs `task` from start to end, its records and memory into `report` (the task's own report,
// which its hooks fill too).
void run_training(TrainingTask& task, const RunOptions& run, const TrainingOutputs& outputs, comm::Communicator& world,
                  TrainingReport& report);

// run_training() of a Task built from (options, world, the Report it fills); returns the report.
template <class Task, class Report, class Options>
Report run_training_task(const Options& options, const RunOptions& run, const TrainingOutputs& outputs,
                         comm::Communicator& world) {
  Report report;
  Task task(options, world, report);
  run_training(task, run, outputs, world, report);
  return report;
}

}  // namespace loom::train
