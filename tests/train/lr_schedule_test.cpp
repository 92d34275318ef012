// Learning-rate schedules: values at chosen epochs and argument errors naming the option.

#include <gtest/gtest.h>

#include "loom/core/error.hpp"
#include "loom/train/lr_schedule.hpp"

namespace loom::train {
namespace {

TEST(LrSchedule, NoneStepAndCosine) {
  EXPECT_DOUBLE_EQ(learning_rate_at({}, 0.01, 37, 100), 0.01);
  const LrSchedule step{LrScheduleKind::kStep, 0.5, 10};
  EXPECT_DOUBLE_EQ(learning_rate_at(step, 0.01, 9, 100), 0.01);
  EXPECT_DOUBLE_EQ(learning_rate_at(step, 0.01, 10, 100), 0.005);
  EXPECT_DOUBLE_EQ(learning_rate_at(step, 0.01, 25, 100), 0.0025);
  const LrSchedule cosine{LrScheduleKind::kCosine, 0.5, 10};
  EXPECT_DOUBLE_EQ(learning_rate_at(cosine, 0.01, 0, 100), 0.01);
  EXPECT_NEAR(learning_rate_at(cosine, 0.01, 50, 100), 0.005, 1e-15);
  EXPECT_LT(learning_rate_at(cosine, 0.01, 99, 100), 0.01 * 0.001);
  EXPECT_GT(learning_rate_at(cosine, 0.01, 99, 100), 0.0);
}

TEST(LrSchedule, BadValuesNameTheirOption) {
  const auto message = [](const LrSchedule& s) {
    try {
      check_lr_schedule(s);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(message({LrScheduleKind::kStep, 0.0, 10}).find("--lr-gamma"), std::string::npos);
  EXPECT_NE(message({LrScheduleKind::kStep, 0.5, 0}).find("--lr-step"), std::string::npos);
  EXPECT_EQ(message({LrScheduleKind::kCosine, 0.5, 10}), "");
}

}  // namespace
}  // namespace loom::train
