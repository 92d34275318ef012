#include "loom/control/controller.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

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

const std::vector<std::string>& controller_names() {
  static const std::vector<std::string> names = {"never", "lookahead", "periodic", "rules", "logistic", "llm"};
  return names;
}

namespace {

void check_name(const std::string& name, const std::string& argument, const std::vector<std::string>& allowed) {
  for (const auto& a : allowed)
    if (a == name) return;
  throw Error::in_argument(argument, fmt::format("unknown value '{}' (one of {})", name, fmt::join(allowed, ", ")));
}

}  // namespace

void validate(const ControllerOptions& o) {
  check_name(o.name, "--controller", controller_names());
  LOOM_CHECK_ARG(o.period > 0, "--prefetch-period", "must be positive, got {}", o.period);
  if (o.name == "llm") {
    check_name(o.llm_api, "--llm-api", {"ollama", "openai"});
    check_name(o.llm_fallback, "--llm-fallback", {"never", "periodic", "rules", "logistic"});
    LOOM_CHECK_ARG(o.llm_timeout > 0, "--llm-timeout", "must be positive, got {}", o.llm_timeout);
    LOOM_CHECK_ARG(o.llm_retries >= 0, "--llm-retries", "must be >= 0, got {}", o.llm_retries);
    LOOM_CHECK_ARG(o.llm_url.rfind("http://", 0) == 0, "--llm-url", "must start with http://, got '{}'", o.llm_url);
  }
}

std::unique_ptr<Controller> make_controller(const ControllerOptions& o) {
  validate(o);
  if (o.name == "never") return std::make_unique<NeverController>();
  if (o.name == "lookahead") return std::make_unique<LookaheadController>();
  if (o.name == "periodic") return std::make_unique<PeriodicController>(o.period);
  if (o.name == "rules") return std::make_unique<RulesController>();
  if (o.name == "logistic") return std::make_unique<LogisticController>(o.seed);
  ControllerOptions fallback = o;
  fallback.name = o.llm_fallback;
  return std::make_unique<LlmController>(o, make_controller(fallback));
}

}  // namespace loom::control
