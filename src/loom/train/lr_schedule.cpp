#include "loom/train/lr_schedule.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "loom/core/error.hpp"

namespace loom::train {

void check_lr_schedule(const LrSchedule& s) {
  LOOM_CHECK_ARG(s.gamma > 0, "--lr-gamma", "must be positive, got {}", s.gamma);
  LOOM_CHECK_ARG(s.step > 0, "--lr-step", "must be positive, got {}", s.step);
}

double learning_rate_at(const LrSchedule& s, double lr, int epoch, int epochs) {
  switch (s.kind) {
    case LrScheduleKind::kStep: return lr * std::pow(s.gamma, epoch / std::max(1, s.step));
    case LrScheduleKind::kCosine: return 0.5 * lr * (1 + std::cos(std::numbers::pi * epoch / std::max(1, epochs)));
    case LrScheduleKind::kNone: break;
  }
  return lr;
}

void set_learning_rate(torch::optim::Adam& optimizer, double lr) {
  for (auto& group : optimizer.param_groups()) static_cast<torch::optim::AdamOptions&>(group.options()).lr(lr);
}

}  // namespace loom::train
