// PrefetchControl: drives one rank's prefetch buffer with a controller (Rudder). After every
// prepared minibatch (on the pipeline's producer thread, so off the training critical path) it
// turns the fetch statistics into a StepStats, keeps a window of the last `window` of them,
// measures the effect of past decisions (the window after a decision against the one before),
// polls an asynchronous controller, and at the end of each window asks the controller to decide.
// An eviction decision makes the buffer evict and replace with the next minibatch's request.
// Every decision and every measured outcome is written to a JSON-lines log (if a path is given).
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>

#include "loom/control/controller.hpp"
#include "loom/core/metrics.hpp"
#include "loom/feature/prefetch_buffer.hpp"

namespace loom::loader {

struct PrefetchCounters {
  std::int64_t decisions = 0, evictions = 0, fallbacks = 0;
};

class PrefetchControl {
 public:
  PrefetchControl(feature::PrefetchBuffer& buffer, std::unique_ptr<control::Controller> controller, int window,
                  nlohmann::json facts, const std::string& log_path);

  // Producer thread: after each minibatch's features were gathered.
  void after_batch(const feature::FetchStats& fetch, double epoch_progress);
  // Training thread: the compute time of the latest step.
  void record_step_seconds(double seconds) { step_seconds_.store(seconds); }

  // Read when no batch is being prepared (between epochs).
  const PrefetchCounters& counters() const { return counters_; }
  const control::Controller& controller() const { return *controller_; }

 private:
  void apply(const control::Decision& decision);
  feature::PrefetchBuffer* buffer_;
  std::unique_ptr<control::Controller> controller_;
  std::size_t window_;
  control::ControlContext context_;
  std::int64_t step_ = 0;
  std::atomic<double> step_seconds_{0.0};
  PrefetchCounters counters_;
  core::MetricsLog log_;
};

}  // namespace loom::loader
