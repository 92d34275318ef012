// Controllers: periodic evicts on its period, rules follow the buffer's statistics, logistic
// learns from measured evictions, and LLM answers are parsed strictly.
#include <gtest/gtest.h>

#include "loom/control/llm_controller.hpp"
#include "loom/control/simple_controllers.hpp"
#include "loom/core/error.hpp"

namespace loom::control {
namespace {

DecisionRecord eviction_at(std::int64_t step) {
  DecisionRecord r;
  r.step = step;
  r.evict = true;
  return r;
}

ControlContext window_at(std::int64_t step, double hit_rate, double occupancy, double idle) {
  ControlContext c;
  for (std::int64_t s = step - 3; s <= step; ++s) {
    StepStats x;
    x.step = s;
    x.lookups = 100;
    x.hits = static_cast<std::int64_t>(hit_rate * 100);
    x.remote_rows = 100 - x.hits;
    x.occupancy = occupancy;
    x.candidate_share = idle;
    c.window.push_back(x);
  }
  return c;
}

TEST(PeriodicController, EvictsEveryPeriodMinibatches) {
  PeriodicController p(8);
  auto c = window_at(7, 0.5, 1, 0.2);
  EXPECT_FALSE(p.decide(c).evict);  // 7 minibatches in
  c = window_at(8, 0.5, 1, 0.2);
  EXPECT_TRUE(p.decide(c).evict);
  c.recent.push_back(eviction_at(8));
  c = [&] {
    auto d = window_at(12, 0.5, 1, 0.2);
    d.recent = c.recent;
    return d;
  }();
  EXPECT_FALSE(p.decide(c).evict);
}

TEST(RulesController, FillsAnEmptyBufferAndEvictsIdleRowsOnly) {
  RulesController r;
  EXPECT_TRUE(r.decide(window_at(10, 0.2, 0.5, 0)).evict) << "half-empty buffer while rows are missed";
  EXPECT_TRUE(r.decide(window_at(10, 0.6, 1, 0.3)).evict) << "30% idle";
  EXPECT_FALSE(r.decide(window_at(10, 0.6, 1, 0.01)).evict) << "full and busy";
}

TEST(RulesController, WaitsToMeasureItsLastEviction) {
  RulesController r;
  auto c = window_at(10, 0.6, 1, 0.3);
  c.recent.push_back(eviction_at(9));
  EXPECT_FALSE(r.decide(c).evict);
}

TEST(LogisticController, LearnsThatEvictionsHurtAndStopsEvicting) {
  LogisticController l(1);
  ControlContext c = window_at(0, 0.5, 1, 0.3);
  int evictions_late = 0;
  for (int round = 0; round < 200; ++round) {
    // Every eviction so far lowered the hit rate and raised remote rows.
    DecisionRecord r;
    r.step = round;
    r.evict = true;
    r.measured = true;
    r.before = summarize(c.window);
    r.after = r.before;
    r.after.hit_rate -= 0.1 + 0.001 * (round % 7);
    r.after.remote_rows += 10 + round % 5;
    c.recent = {r};
    auto next = window_at(round + 1, 0.5 + 0.01 * (round % 3), 1, 0.3 + 0.01 * (round % 5));
    next.recent = c.recent;
    c = next;
    const bool evict = l.decide(c).evict;
    if (round >= 150) evictions_late += evict;
  }
  EXPECT_LT(evictions_late, 15) << "only exploration should evict after learning";
}

TEST(LlmAnswer, ParsesDecisionsAndRejectsAnythingElse) {
  const auto d =
      parse_llm_answer(R"({"decision": "Evict", "explanation": "idle rows", "expected_impact": "+5% hits"})");
  EXPECT_TRUE(d.evict);
  EXPECT_EQ(d.explanation, "idle rows");
  EXPECT_EQ(d.expected_impact, "+5% hits");
  EXPECT_FALSE(parse_llm_answer(R"({"decision": false})").evict);
  EXPECT_THROW(parse_llm_answer("evict, I think"), Error);
  EXPECT_THROW(parse_llm_answer(R"({"explanation": "x"})"), Error);
  EXPECT_THROW(parse_llm_answer(R"({"decision": "maybe"})"), Error);
}

TEST(Controllers, UnknownNamesAreErrorsNamingTheArgument) {
  EXPECT_THROW(core::parse_enum(kControllerNames, "psychic", "--controller"), Error);
  EXPECT_THROW(core::parse_enum(kLlmApiNames, "grpc", "--llm-api"), Error);
  ControllerOptions o;
  o.kind = ControllerKind::kNone;  // no buffer: nothing to control
  EXPECT_THROW(check(o), Error);
  o.kind = ControllerKind::kLlm;
  o.llm_fallback = ControllerKind::kLlm;  // the fallback must decide without an LLM
  EXPECT_THROW(check(o), Error);
  o.llm_fallback = ControllerKind::kRules;
  EXPECT_NO_THROW(check(o));
}

}  // namespace
}  // namespace loom::control
