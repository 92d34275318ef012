// The steps every trainer takes around its epochs (`loom train`, `loom fullgraph`, the Python
// Loader's rank): open_rank() at the start; the epoch loop (epoch_driver.hpp) per epoch the agreed
// stop check and, when a signal stops the run, one line saying where its checkpoint is. All but
// log_stopped are collective over `world`.
#pragma once

#include <functional>
#include <string>

#include <torch/types.h>

#include "loom/comm/communicator.hpp"
#include "loom/train/run_options.hpp"
#include "loom/train/training_outputs.hpp"

namespace loom::train {

// What this rank computes with.
struct RankRuntime {
  int threads = 0;  // CPU threads of this rank
  torch::Device device = torch::kCPU;
};

// Checks the options (`check`, then the outputs of training_outputs.hpp's check_output_options;
// one error on every rank), gives this rank its share of the machine's cores, turns on link
// emulation and resolves the device.
RankRuntime open_rank(const RunOptions& run, const TrainingOutputs& outputs, comm::Communicator& world,
                      const std::function<void()>& check);

// The signal (SIGTERM, SIGINT) any rank has been asked to stop by since the handlers were
// installed, or 0: every rank gets the same answer.
int agreed_stop_signal(const comm::Communicator& world);

// Rank 0 logs that `signal` stopped the run after `when`, and where to continue from.
void log_stopped(int signal, const std::string& when, const CheckpointOptions& checkpoint,
                 const comm::Communicator& world);

}  // namespace loom::train
