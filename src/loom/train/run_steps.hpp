// The steps every trainer takes around its epochs (`loom train`, `loom fullgraph`): open_rank() at
// the start; the epoch loop (epoch_driver.hpp) per epoch the agreed
// stop check and, when a signal stops the run, one line saying where its checkpoint is. All but
// log_stopped are collective over `world`.
#pragma once

#include <functional>
#include <string>

#include "loom/comm/communicator.hpp"
#include "loom/nn/rank_runtime.hpp"
#include "loom/train/run_options.hpp"
#include "loom/train/training_outputs.hpp"

namespace loom::train {

// nn::open_rank() with the run's threads, device and link emulation, checking the options
// (`check`, then the outputs of training_outputs.hpp's check_output_options; one error on every
// rank).
nn::RankRuntime open_rank(const RunOptions& run, const TrainingOutputs& outputs, comm::Communicator& world,
                          const std::function<void()>& check);

// The signal (SIGTERM, SIGINT) any rank has been asked to stop by since the handlers were
// installed, or 0: every rank gets the same answer.
int agreed_stop_signal(const comm::Communicator& world);

// Rank 0 logs that `signal` stopped the run after `when`, and where to continue from.
void log_stopped(int signal, const std::string& when, const CheckpointOptions& checkpoint,
                 const comm::Communicator& world);

}  // namespace loom::train
