#include "loom/train/epoch_driver.hpp"

#include <fmt/format.h>

#include "loom/core/error.hpp"
#include "loom/core/memory.hpp"
#include "loom/core/private_peak.hpp"
#include "loom/core/stop_signal.hpp"
#include "loom/format/checkpoint_dir.hpp"
#include "loom/loader/store_digests.hpp"
#include "loom/train/run_steps.hpp"

namespace loom::train {

void EpochTask::save(int epochs_done, const std::vector<nlohmann::json>&) {
  throw Error(fmt::format("this training task keeps no checkpoints (asked for one after epoch {})", epochs_done));
}

EpochsRun run_epochs(EpochTask& task, const EpochSchedule& schedule, int start_epoch,
                     std::vector<nlohmann::json>& records, core::MetricsLog& metrics, const comm::Communicator& world) {
  const int epochs = schedule.run.epochs;
  EpochsRun done{.epochs_done = start_epoch};
  for (int epoch = start_epoch; epoch < epochs; ++epoch) {
    TrainedEpoch trained = task.train(epoch);
    if (!trained.record) {
      done.stopped_by = trained.stopped_by;
      return done;
    }
    nlohmann::json& record = *trained.record;
    done.early_stop = schedule.run.eval.due(epoch, epochs) && task.evaluate(epoch, record);
    records.push_back(record);
    if (world.rank() == 0) {
      metrics.write(record);
      if (!schedule.quiet) task.log(record);
    }
    done.epochs_done = epoch + 1;
    // A signal during the epoch's last step or its evaluation stops the run here.
    const bool last = epoch + 1 == epochs || done.early_stop;
    if (!last) done.stopped_by = trained.stopped_by != 0 ? trained.stopped_by : agreed_stop_signal(world);
    if (schedule.checkpoint.due(epoch + 1, done.stopped_by)) task.save(epoch + 1, records);
    if (done.stopped_by != 0) {
      log_stopped(done.stopped_by, fmt::format("epoch {}", epoch + 1), schedule.checkpoint, world);
      return done;
    }
    if (done.early_stop) return done;
  }
  return done;
}

namespace {

// The metrics log (rank 0's; the others keep a disabled one): new, or continued from `prefix`.
core::MetricsLog open_metrics_log(const TrainingOutputs& outputs, const std::optional<core::LogPrefix>& prefix,
                                  int rank) {
  const std::string path = rank == 0 ? outputs.output.metrics_path : "";
  if (!outputs.checkpoint.resume) return core::MetricsLog(path);
  return core::MetricsLog(path, prefix, outputs.output.overwrite);
}

}  // namespace

void run_training(TrainingTask& task, const RunOptions& run, const TrainingOutputs& outputs, comm::Communicator& world,
                  TrainingReport& report) {
  const nn::RankRuntime runtime = open_rank(run, outputs, world, [&] { task.check(); });
  core::install_stop_handlers();
  const std::int64_t runtime_bytes = core::resident_bytes();
  partition::StoreVerification digests = loader::start_store_verification(outputs.store, world);
  const OpenedTask opened = task.open(runtime, runtime_bytes);
  core::MetricsLog metrics = open_metrics_log(outputs, opened.metrics_log, world.rank());
  if (world.rank() == 0 && !opened.setup.is_null()) metrics.write(opened.setup);
  const std::int64_t estimate = opened.memory ? record_memory_plan(*opened.memory, world, metrics) : 0;
  std::optional<core::PrivatePeak> private_peak;
  if (opened.memory) private_peak.emplace();
  task.prepare(metrics);
  loader::join_digest_check(digests, metrics, world);
  if (!outputs.checkpoint.resume && outputs.output.overwrite && !opened.checkpoint_dir.empty())
    format::remove_checkpoints(opened.checkpoint_dir);  // an earlier run's, which --overwrite replaces
  const EpochsRun epochs = run_epochs(task, {run, outputs.checkpoint, outputs.output.quiet}, opened.start_epoch,
                                      report.epochs, metrics, world);
  report.stopped_by = epochs.stopped_by;
  if (epochs.stopped_by != 0) return;
  task.finish(epochs, metrics);
  if (!opened.memory) return;
  report.memory_estimate_bytes = estimate;
  report.memory_peak_bytes =
      record_memory_peak(estimate, opened.memory->resident(), private_peak->bytes(), world, metrics);
}

}  // namespace loom::train
