#include <fmt/format.h>

#include "loom/control/simple_controllers.hpp"

namespace loom::control {

Decision PeriodicController::decide(const ControlContext& context) {
  if (context.window.empty()) return make_decision(false, name(), "no statistics yet");
  std::int64_t last = 0;
  for (const auto& r : context.recent)
    if (r.evict) last = r.step;
  const std::int64_t since = context.window.back().step - last;
  if (since >= period_)
    return make_decision(true, name(), fmt::format("{} minibatches since the last eviction", since));
  return make_decision(false, name(), fmt::format("{} of {} minibatches", since, period_));
}

}  // namespace loom::control
