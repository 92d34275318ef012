#include <cmath>

#include <fmt/format.h>

#include "loom/control/simple_controllers.hpp"

namespace loom::control {

namespace {
double sigmoid(double z) { return 1.0 / (1.0 + std::exp(-z)); }
constexpr double kLearningRate = 0.5;
constexpr double kExplore = 0.1;
}  // namespace

LogisticController::Features LogisticController::raw(const WindowSummary& w) const {
  return {w.hit_rate, w.remote_rows, w.fetch_seconds, w.occupancy, w.candidate_share, w.epoch_progress};
}

LogisticController::Features LogisticController::normalised(const WindowSummary& w) const {
  Features x = raw(w);
  for (int i = 0; i < kFeatures; ++i) {
    const double sd = seen_ > 1 ? std::sqrt(m2_[i] / static_cast<double>(seen_ - 1)) : 0.0;
    x[i] = sd > 1e-12 ? (x[i] - mean_[i]) / sd : 0.0;
  }
  return x;
}

void LogisticController::observe(const WindowSummary& w) {  // Welford running mean and variance
  const Features x = raw(w);
  ++seen_;
  for (int i = 0; i < kFeatures; ++i) {
    const double d = x[i] - mean_[i];
    mean_[i] += d / static_cast<double>(seen_);
    m2_[i] += d * (x[i] - mean_[i]);
  }
}

void LogisticController::learn(const DecisionRecord& r) {
  const auto sd = [&](int i) {
    return seen_ > 1 ? std::max(1e-12, std::sqrt(m2_[i] / static_cast<double>(seen_ - 1))) : 1.0;
  };
  const double score = (r.after.hit_rate - r.before.hit_rate) / sd(0) -
                       (r.after.remote_rows - r.before.remote_rows) / sd(1) -
                       (r.after.fetch_seconds - r.before.fetch_seconds) / sd(2);
  const double label = score > 0 ? 1.0 : 0.0;
  const Features x = normalised(r.before);
  double z = weights_[kFeatures];
  for (int i = 0; i < kFeatures; ++i) z += weights_[i] * x[i];
  const double gradient = sigmoid(z) - label;
  for (int i = 0; i < kFeatures; ++i) weights_[i] -= kLearningRate * gradient * x[i];
  weights_[kFeatures] -= kLearningRate * gradient;
}

Decision LogisticController::decide(const ControlContext& context) {
  if (context.window.empty()) return make_decision(false, name(), "no statistics yet");
  const WindowSummary now = summarize(context.window);
  observe(now);
  for (const auto& r : context.recent)
    if (r.evict && r.measured && r.step > learned_up_to_) {
      learn(r);
      learned_up_to_ = r.step;
    }
  if (now.candidate_share <= 0 && now.occupancy >= 0.999) return make_decision(false, name(), "no idle rows");
  const Features x = normalised(now);
  double z = weights_[kFeatures];
  for (int i = 0; i < kFeatures; ++i) z += weights_[i] * x[i];
  const double p = sigmoid(z);
  if (p >= 0.5) return make_decision(true, name(), fmt::format("P(eviction helps) = {:.2f}", p));
  if (rng_.uniform() < kExplore) return make_decision(true, name(), fmt::format("exploring (P = {:.2f})", p));
  return make_decision(false, name(), fmt::format("P(eviction helps) = {:.2f}", p));
}

}  // namespace loom::control
