#include "loom/train/run_steps.hpp"

#include "loom/core/log.hpp"
#include "loom/core/stop_signal.hpp"

namespace loom::train {

nn::RankRuntime open_rank(const RunOptions& run, const TrainingOutputs& outputs, comm::Communicator& world,
                          const std::function<void()>& check) {
  return nn::open_rank(run.rank, world, [&] {
    check();
    check_output_options(outputs, world.rank() == 0);
  });
}

int agreed_stop_signal(const comm::Communicator& world) {
  return world.allreduce_max(core::stop_signal(), comm::Channel::control);
}

void log_stopped(int signal, const std::string& when, const CheckpointOptions& checkpoint,
                 const comm::Communicator& world) {
  if (world.rank() != 0) return;
  spdlog::warn("stopped by signal {} after {}: {}", signal, when,
               checkpoint.dir.empty() ? "nothing saved (no --checkpoint-dir)"
                                      : "checkpoint in " + checkpoint.dir + "; continue with --resume");
}

}  // namespace loom::train
