// The controllers that need no outside service (see controller.hpp): never, lookahead, periodic,
// rules, logistic. Each is deterministic given its inputs (logistic: and its seed).
#pragma once

#include <array>

#include "loom/control/controller.hpp"
#include "loom/core/rng.hpp"

namespace loom::control {

// Static prefetch: never evicts.
class NeverController : public Controller {
 public:
  Decision decide(const ControlContext&) override { return make_decision(false, name(), "static prefetch"); }
  std::string name() const override { return "never"; }
};

// Leaves replacement to the buffer's lookahead admission (feature::PrefetchOptions::lookahead,
// which the trainer turns on for this controller): the fetched rows the pipeline's next
// minibatches use replace rows out of sight every minibatch, so nothing is evicted by misses.
class LookaheadController : public Controller {
 public:
  Decision decide(const ControlContext&) override {
    return make_decision(false, name(), "lookahead admission replaces rows every minibatch");
  }
  std::string name() const override { return "lookahead"; }
};

// Evicts once `period` minibatches have passed since the last eviction (MassiveGNN).
class PeriodicController : public Controller {
 public:
  explicit PeriodicController(int period) : period_(period) {}
  Decision decide(const ControlContext& context) override;
  std::string name() const override { return "periodic"; }

 private:
  int period_;
};

// Hand-written rules: fill empty slots while rows are missed; evict when many rows sit idle or
// the hit rate fell below what the last eviction achieved; back off after an eviction that made
// things worse.
class RulesController : public Controller {
 public:
  Decision decide(const ControlContext& context) override;
  std::string name() const override { return "rules"; }
};

// Online logistic regression: features are the z-normalised window statistics; each measured
// eviction is a training example labelled by S = dHitRate - dRemoteRows - dFetchTime (deltas
// z-normalised) > 0. Evicts when the predicted chance that S > 0 is at least 1/2, and explores
// (evicts with probability 0.1 when idle rows exist) so that it keeps learning.
class LogisticController : public Controller {
 public:
  explicit LogisticController(std::uint64_t seed) : rng_(seed) {}
  Decision decide(const ControlContext& context) override;
  std::string name() const override { return "logistic"; }

 private:
  static constexpr int kFeatures = 6;
  using Features = std::array<double, kFeatures>;
  Features raw(const WindowSummary& w) const;
  Features normalised(const WindowSummary& w) const;
  void observe(const WindowSummary& w);
  void learn(const DecisionRecord& record);
  std::array<double, kFeatures + 1> weights_{};  // last = bias
  Features mean_{}, m2_{};
  std::int64_t seen_ = 0;
  std::int64_t learned_up_to_ = -1;  // step of the last record learned from
  core::Rng rng_;
};

}  // namespace loom::control
