// Learning-rate schedules over epochs, shared by mini-batch and full-graph training. For base
// rate lr and epoch e (0-based) of E:
//   none    lr
//   step    lr * gamma^floor(e / step)
//   cosine  lr / 2 * (1 + cos(pi * e / E))   (lr at the first epoch, towards 0 at the last)
#pragma once

#include "loom/core/enum_names.hpp"
#include <string>

#include <torch/torch.h>

namespace loom::train {

enum class LrScheduleKind { kNone, kStep, kCosine };
inline constexpr core::EnumNames<LrScheduleKind, 3> kLrScheduleNames{
    {{"none", LrScheduleKind::kNone}, {"step", LrScheduleKind::kStep}, {"cosine", LrScheduleKind::kCosine}}};

struct LrSchedule {
  LrScheduleKind kind = LrScheduleKind::kNone;
  double gamma = 0.5;  // step: factor
  int step = 10;       // step: epochs per step
};

// Throws an argument error naming --lr-gamma or --lr-step.
void check_lr_schedule(const LrSchedule& schedule);

double learning_rate_at(const LrSchedule& schedule, double lr, int epoch, int epochs);

// Sets the rate of every parameter group of an Adam optimizer.
void set_learning_rate(torch::optim::Adam& optimizer, double lr);

}  // namespace loom::train
