// Options shared by `loom train` and `loom fullgraph`: the learning-rate schedule, checkpoints,
// the final outputs (predictions, embeddings) and the memory limit.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "loom/cli/checkpoint_args.hpp"
#include "loom/cli/typed_options.hpp"
#include "loom/core/memory.hpp"
#include "loom/train/lr_schedule.hpp"
#include "loom/train/memory_plan.hpp"

namespace loom::cli {

inline void add_lr_schedule_options(CLI::App& sub, train::LrSchedule& schedule) {
  add_enum_option(sub, "--lr-schedule", schedule.kind, train::kLrScheduleNames,
                  "step: x --lr-gamma every --lr-step epochs; cosine: to 0");
  sub.add_option("--lr-gamma", schedule.gamma, "step schedule: factor")->capture_default_str();
  sub.add_option("--lr-step", schedule.step, "step schedule: epochs per step")->capture_default_str();
}

inline void add_memory_limit_option(CLI::App& sub, std::int64_t& limit) {
  add_parsed_option(
      sub, "--memory-limit", limit,
      [](const std::string& text) { return core::parse_memory_size(text, "--memory-limit"); },
      "Memory one rank may use, e.g. 4G (default: what the machine has available); the run stops at "
      "start-up where its estimate does not fit")
      ->option_text("SIZE");
}

inline void add_output_options(CLI::App& sub, std::string& dir, bool& save_embeddings, bool& overwrite) {
  sub.add_option("-o,--output", dir, "Write predictions (and embeddings) keyed by original id here");
  sub.add_flag("--save-embeddings", save_embeddings, "Also write node embeddings (input of the last layer)");
  sub.add_flag("--overwrite", overwrite, "Replace an existing --output directory");
}

}  // namespace loom::cli
