#include "loom/train/run_options.hpp"

#include <cmath>

#include "loom/core/error.hpp"
#include "loom/core/parallel.hpp"

namespace loom::train {

void check_run_options(const RunOptions& run) {
  LOOM_CHECK_ARG(run.epochs >= 0, "--epochs", "must be >= 0, got {}", run.epochs);
  LOOM_CHECK_ARG(run.lr > 0 && std::isfinite(run.lr), "--lr", "must be positive and finite, got {}", run.lr);
  LOOM_CHECK_ARG(run.weight_decay >= 0 && std::isfinite(run.weight_decay), "--weight-decay",
                 "must be >= 0 and finite, got {}", run.weight_decay);
  core::check_thread_count(run.rank.threads, "--threads");
  LOOM_CHECK_ARG(run.memory_limit >= 0, "--memory-limit", "must be >= 0, got {}", run.memory_limit);
  check_lr_schedule(run.lr_schedule);
  LOOM_CHECK_ARG(run.eval.every >= 0, "--eval-every",
                 "must be >= 0 (0 = never; N = after every N-th epoch and the last, so N >= --epochs scores the "
                 "last only), got {}",
                 run.eval.every);
}

void check_checkpoint_options(const CheckpointOptions& checkpoint) {
  LOOM_CHECK_ARG(!checkpoint.resume || !checkpoint.dir.empty(), "--resume", "needs --checkpoint-dir");
  LOOM_CHECK_ARG(checkpoint.every >= 0, "--checkpoint-every", "must be >= 0, got {}", checkpoint.every);
  LOOM_CHECK_ARG(checkpoint.keep >= 0, "--keep-checkpoints", "must be >= 0, got {}", checkpoint.keep);
}

}  // namespace loom::train
