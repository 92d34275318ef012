#include "loom/control/controller.hpp"

#include <fmt/format.h>

#include "loom/control/llm_controller.hpp"
#include "loom/control/simple_controllers.hpp"
#include "loom/core/error.hpp"

namespace loom::control {

nlohmann::json WindowSummary::to_json() const {
  return {{"hit_rate", hit_rate},
          {"remote_rows", remote_rows},
          {"fetch_seconds", fetch_seconds},
          {"step_seconds", step_seconds},
          {"occupancy", occupancy},
          {"candidate_share", candidate_share},
          {"epoch_progress", epoch_progress}};
}

WindowSummary summarize(const std::deque<StepStats>& steps) {
  WindowSummary s;
  if (steps.empty()) return s;
  std::int64_t lookups = 0, hits = 0;
  for (const auto& x : steps) {
    lookups += x.lookups;
    hits += x.hits;
    s.remote_rows += static_cast<double>(x.remote_rows);
    s.fetch_seconds += x.fetch_seconds;
    s.step_seconds += x.step_seconds;
  }
  const auto n = static_cast<double>(steps.size());
  s.hit_rate = lookups > 0 ? static_cast<double>(hits) / lookups : 0;
  s.remote_rows /= n;
  s.fetch_seconds /= n;
  s.step_seconds /= n;
  s.occupancy = steps.back().occupancy;
  s.candidate_share = steps.back().candidate_share;
  s.epoch_progress = steps.back().epoch_progress;
  return s;
}

nlohmann::json DecisionRecord::to_json() const {
  nlohmann::json j = {{"step", step},
                      {"decision", evict ? "evict" : "keep"},
                      {"source", source},
                      {"explanation", explanation},
                      {"before", before.to_json()}};
  if (measured) j["after"] = after.to_json();
  return j;
}

void check(const ControllerOptions& o) {
  LOOM_CHECK_ARG(o.kind != ControllerKind::kNone, "--controller", "'none' builds no prefetch buffer to control");
  LOOM_CHECK_ARG(o.period > 0, "--prefetch-period", "must be positive, got {}", o.period);
  if (o.kind == ControllerKind::kLlm) {
    const ControllerKind f = o.llm_fallback;
    LOOM_CHECK_ARG(f == ControllerKind::kNever || f == ControllerKind::kPeriodic || f == ControllerKind::kRules ||
                       f == ControllerKind::kLogistic,
                   "--llm-fallback", "must be never, periodic, rules or logistic, got '{}'",
                   core::enum_name(kControllerNames, f));
    LOOM_CHECK_ARG(o.llm_timeout > 0, "--llm-timeout", "must be positive, got {}", o.llm_timeout);
    LOOM_CHECK_ARG(o.llm_retries >= 0, "--llm-retries", "must be >= 0, got {}", o.llm_retries);
    LOOM_CHECK_ARG(o.llm_url.rfind("http://", 0) == 0, "--llm-url", "must start with http://, got '{}'", o.llm_url);
  }
}

std::unique_ptr<Controller> make_controller(const ControllerOptions& o) {
  check(o);
  switch (o.kind) {
    case ControllerKind::kNever: return std::make_unique<NeverController>();
    case ControllerKind::kLookahead: return std::make_unique<LookaheadController>();
    case ControllerKind::kPeriodic: return std::make_unique<PeriodicController>(o.period);
    case ControllerKind::kRules: return std::make_unique<RulesController>();
    case ControllerKind::kLogistic: return std::make_unique<LogisticController>(o.seed);
    case ControllerKind::kLlm:
    case ControllerKind::kNone: break;
  }
  ControllerOptions fallback = o;
  fallback.kind = o.llm_fallback;
  return std::make_unique<LlmController>(o, make_controller(fallback));
}

}  // namespace loom::control
