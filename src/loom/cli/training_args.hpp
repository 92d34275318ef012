// Options shared by `loom train` and `loom fullgraph`: the learning-rate schedule, checkpoints,
// and the final outputs (predictions, embeddings).
#pragma once

#include <limits>
#include <string>

#include <CLI/CLI.hpp>

#include "loom/cli/typed_options.hpp"
#include "loom/train/lr_schedule.hpp"

namespace loom::cli {

inline void add_lr_schedule_options(CLI::App& sub, train::LrSchedule& schedule) {
  add_enum_option(sub, "--lr-schedule", schedule.kind, train::kLrScheduleNames,
                  "step: x --lr-gamma every --lr-step epochs; cosine: to 0");
  sub.add_option("--lr-gamma", schedule.gamma, "step schedule: factor")->capture_default_str();
  sub.add_option("--lr-step", schedule.step, "step schedule: epochs per step")->capture_default_str();
}

inline void add_checkpoint_options(CLI::App& sub, std::string& dir, int& every, int& keep, bool& resume,
                                   const std::string& dir_help) {
  sub.add_option("--checkpoint-dir", dir, dir_help);
  sub.add_option("--checkpoint-every", every, "Checkpoint every N epochs (0 = never)")->capture_default_str();
  sub.add_option("--keep-checkpoints", keep, "Keep only the newest N checkpoints (0 = all)")
      ->check(CLI::Range(0, std::numeric_limits<int>::max()))
      ->capture_default_str();
  sub.add_flag("--resume", resume, "Continue from the newest checkpoint in --checkpoint-dir");
}

inline void add_output_options(CLI::App& sub, std::string& dir, bool& save_embeddings, bool& overwrite) {
  sub.add_option("-o,--output", dir, "Write predictions (and embeddings) keyed by original id here");
  sub.add_flag("--save-embeddings", save_embeddings, "Also write node embeddings (input of the last layer)");
  sub.add_flag("--overwrite", overwrite, "Replace an existing --output directory");
}

}  // namespace loom::cli
