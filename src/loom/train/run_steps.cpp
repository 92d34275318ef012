#include "loom/train/run_steps.hpp"

#include "loom/core/log.hpp"
#include "loom/core/stop_signal.hpp"
#include "loom/nn/runtime.hpp"

namespace loom::train {

RankRuntime open_rank(const RunOptions& run, const TrainingOutputs& outputs, comm::Communicator& world,
                      const std::function<void()>& check) {
  world.agree_on([&] {
    check();
    check_output_options(outputs, world.rank() == 0);
  });
  RankRuntime rank;
  rank.threads = nn::cpu_threads_per_rank(run.threads, world.ranks_on_this_node());
  nn::configure_cpu_runtime(rank.threads);
  world.set_link_model(run.link);
  world.agree_on([&] { rank.device = loader::resolve_device(run.device, world.rank()); });
  return rank;
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
