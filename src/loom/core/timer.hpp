// Wall-clock timing: Timer measures one interval; TimeAccumulator sums named phases
// (sample, fetch wait, compute, all-reduce, ...) for per-epoch breakdowns.
#pragma once

#include <chrono>
#include <map>
#include <string>

namespace loom::core {

class Timer {
 public:
  Timer() : start_(Clock::now()) {}
  void reset() { start_ = Clock::now(); }
  double seconds() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

 private:
  using Clock = std::chrono::steady_clock;
  Clock::time_point start_;
};

class TimeAccumulator {
 public:
  void add(const std::string& phase, double seconds) { totals_[phase] += seconds; }
  double get(const std::string& phase) const {
    auto it = totals_.find(phase);
    return it == totals_.end() ? 0.0 : it->second;
  }
  const std::map<std::string, double>& totals() const { return totals_; }
  void clear() { totals_.clear(); }

 private:
  std::map<std::string, double> totals_;
};

// Adds the lifetime of the scope to `acc[phase]`.
class ScopedPhase {
 public:
  ScopedPhase(TimeAccumulator& acc, std::string phase) : acc_(acc), phase_(std::move(phase)) {}
  ~ScopedPhase() { acc_.add(phase_, timer_.seconds()); }

 private:
  TimeAccumulator& acc_;
  std::string phase_;
  Timer timer_;
};

}  // namespace loom::core
