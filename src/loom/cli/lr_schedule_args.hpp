// The learning-rate schedule options shared by `loom train` and `loom fullgraph`.
#pragma once

#include <CLI/CLI.hpp>

#include "loom/train/lr_schedule.hpp"

namespace loom::cli {

inline void add_lr_schedule_options(CLI::App& sub, train::LrSchedule& schedule) {
  sub.add_option("--lr-schedule", schedule.kind, "none | step (x --lr-gamma every --lr-step epochs) | cosine (to 0)")
      ->capture_default_str();
  sub.add_option("--lr-gamma", schedule.gamma, "step schedule: factor")->capture_default_str();
  sub.add_option("--lr-step", schedule.step, "step schedule: epochs per step")->capture_default_str();
}

}  // namespace loom::cli
