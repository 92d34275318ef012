#include "loom/train/epoch_driver.hpp"

#include <fmt/format.h>

#include "loom/core/error.hpp"
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

}  // namespace loom::train
