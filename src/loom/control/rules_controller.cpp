#include <fmt/format.h>

#include "loom/control/simple_controllers.hpp"

namespace loom::control {

Decision RulesController::decide(const ControlContext& context) {
  if (context.window.empty()) return make_decision(false, name(), "no statistics yet");
  const WindowSummary now = summarize(context.window);
  const DecisionRecord* last = nullptr;
  for (const auto& r : context.recent)
    if (r.evict) last = &r;
  if (last != nullptr && !last->measured) return make_decision(false, name(), "waiting to measure the last eviction");
  const bool backfired = last != nullptr && last->after.hit_rate < last->before.hit_rate &&
                         last->after.remote_rows > last->before.remote_rows;
  const double idle_needed = backfired ? 0.10 : 0.02;
  if (now.occupancy < 0.999 && now.hit_rate < 1.0)
    return make_decision(true, name(), fmt::format("buffer {:.0f}% full while rows are missed", 100 * now.occupancy));
  if (now.candidate_share >= idle_needed)
    return make_decision(
        true, name(),
        fmt::format("{:.0f}% of rows idle (threshold {:.0f}%)", 100 * now.candidate_share, 100 * idle_needed));
  if (last != nullptr && now.candidate_share > 0 && now.hit_rate < last->after.hit_rate - 0.02)
    return make_decision(true, name(),
                         fmt::format("hit rate fell from {:.3f} to {:.3f}", last->after.hit_rate, now.hit_rate));
  return make_decision(false, name(),
                       fmt::format("hit rate {:.3f}, {:.0f}% idle", now.hit_rate, 100 * now.candidate_share));
}

}  // namespace loom::control
