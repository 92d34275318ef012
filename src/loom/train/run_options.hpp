// The option groups both trainers compose (`loom train`'s MinibatchOptions and `loom fullgraph`'s
// FullGraphOptions), each checked by one function that throws Error naming the CLI argument:
//   RunOptions         epochs, optimizer, seed, threads, device, memory limit, link emulation, and
//                      when the validation and test splits are scored (EvalSchedule)
//   CheckpointOptions  where and how often checkpoints are written, and whether to resume
//   OutputOptions      the metrics log, the outputs directory and what is logged
#pragma once

#include <cstdint>
#include <string>

#include "loom/nn/rank_runtime.hpp"
#include "loom/train/lr_schedule.hpp"

namespace loom::train {

// When a trainer scores the validation and test splits (--eval-every, one meaning in both
// trainers): after every `every`-th epoch and after the last; never when `every` is 0 (an
// `every` of --epochs or more scores after the last epoch only).
struct EvalSchedule {
  int every = 1;
  bool never() const { return every == 0; }
  // Whether the splits are scored after epoch `epoch` (from 0) of `epochs`.
  bool due(int epoch, int epochs) const { return every > 0 && ((epoch + 1) % every == 0 || epoch + 1 == epochs); }
};

struct RunOptions {
  int epochs = 10;
  double lr = 0.003;
  double weight_decay = 0.0;
  LrSchedule lr_schedule;
  std::uint64_t seed = 0;
  nn::RankOptions rank;           // threads, device, link emulation
  std::int64_t memory_limit = 0;  // bytes one rank may use (0 = what the machine has available)
  EvalSchedule eval;
};

struct CheckpointOptions {
  std::string dir;      // empty = no checkpoints
  int every = 0;        // epochs between checkpoints (0 = only when a signal stops the run)
  int keep = 0;         // keep the newest N checkpoints (0 = all)
  bool resume = false;  // go on from the newest intact checkpoint in `dir`
  // Whether a checkpoint is written after `epochs_done` epochs, or now that `stopped_by` (a
  // signal, or 0) stops the run.
  bool due(int epochs_done, int stopped_by) const {
    return !dir.empty() && (stopped_by != 0 || (every > 0 && epochs_done % every == 0));
  }
};

struct OutputOptions {
  std::string metrics_path;  // JSON lines, written by rank 0
  std::string dir;           // predictions (and embeddings) keyed by original id, written by rank 0
  bool save_embeddings = false;
  bool overwrite = false;  // replace an existing `dir`
  bool quiet = false;      // no per-epoch log lines
};

// Throw Error naming the argument (--epochs, --lr, --weight-decay, --lr-schedule..., --eval-every, --resume,
// --checkpoint-every, --keep-checkpoints) for a value out of range.
void check_run_options(const RunOptions& run);
void check_checkpoint_options(const CheckpointOptions& checkpoint);

}  // namespace loom::train
