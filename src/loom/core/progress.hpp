// A progress bar for long steps. On a terminal it redraws one line in place (rate, ETA and
// caller-supplied fields such as loss or learning rate); in a log (stderr not a TTY) it prints a
// plain line at most every `log_interval` seconds. update() is cheap and thread-safe (atomic
// counter, rare locked redraw); finish() prints the final line.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>

#include "loom/core/timer.hpp"

namespace loom::core {

class ProgressBar {
 public:
  ProgressBar(std::string label, std::int64_t total, std::string unit = "items", double log_interval = 10.0);
  ~ProgressBar();

  // Adds `delta` done units; `extra` (e.g. "loss 0.41 lr 0.02") is shown when a line is drawn.
  void update(std::int64_t delta, const std::string& extra = "");
  void finish(const std::string& extra = "");
  // Suppress all output (e.g. on ranks other than 0).
  void set_quiet(bool quiet) { quiet_ = quiet; }

 private:
  void draw(std::int64_t done, const std::string& extra, bool final);
  std::string label_, unit_;
  std::int64_t total_;
  double log_interval_;
  bool tty_;
  bool quiet_ = false;
  bool finished_ = false;
  std::atomic<std::int64_t> done_{0};
  std::atomic<double> next_draw_{0.0};
  std::mutex mutex_;
  Timer timer_;
};

}  // namespace loom::core
