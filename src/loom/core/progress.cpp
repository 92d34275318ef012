#include "loom/core/progress.hpp"

#include <unistd.h>

#include <cstdio>

#include <fmt/format.h>

namespace loom::core {

namespace {
std::string human_rate(double per_second) {
  if (per_second >= 1e6) return fmt::format("{:.2f}M", per_second / 1e6);
  if (per_second >= 1e3) return fmt::format("{:.1f}k", per_second / 1e3);
  return fmt::format("{:.1f}", per_second);
}
}  // namespace

ProgressBar::ProgressBar(std::string label, std::int64_t total, std::string unit, double log_interval)
    : label_(std::move(label)),
      unit_(std::move(unit)),
      total_(total),
      log_interval_(log_interval),
      tty_(isatty(STDERR_FILENO) != 0) {
  next_draw_ = tty_ ? 0.2 : log_interval_;
}

ProgressBar::~ProgressBar() {
  if (!finished_ && tty_ && !quiet_) std::fputc('\n', stderr);
}

void ProgressBar::update(std::int64_t delta, const std::string& extra) {
  const std::int64_t done = done_.fetch_add(delta, std::memory_order_relaxed) + delta;
  const double now = timer_.seconds();
  if (quiet_ || now < next_draw_.load(std::memory_order_relaxed)) return;
  std::unique_lock<std::mutex> lock(mutex_, std::try_to_lock);
  if (!lock.owns_lock() || now < next_draw_.load()) return;
  next_draw_ = now + (tty_ ? 0.2 : log_interval_);
  draw(done, extra, false);
}

void ProgressBar::finish(const std::string& extra) {
  if (finished_) return;
  finished_ = true;
  if (quiet_) return;
  std::lock_guard<std::mutex> lock(mutex_);
  draw(done_.load(), extra, true);
}

void ProgressBar::draw(std::int64_t done, const std::string& extra, bool final) {
  const double elapsed = timer_.seconds();
  const double rate = elapsed > 0 ? static_cast<double>(done) / elapsed : 0.0;
  std::string line;
  if (total_ > 0) {
    const double frac = std::min(1.0, static_cast<double>(done) / static_cast<double>(total_));
    const double eta = rate > 0 ? static_cast<double>(total_ - done) / rate : 0.0;
    std::string bar;
    if (tty_) {
      const int width = 24, filled = static_cast<int>(frac * width);
      bar = "[" + std::string(filled, '#') + std::string(width - filled, '.') + "] ";
    }
    line = fmt::format("{}: {}{:5.1f}% {}/{} {} | {} {}/s | {:.1f}s{}", label_, bar, 100.0 * frac, done, total_, unit_,
                       human_rate(rate), unit_, final ? elapsed : eta, final ? "" : " left");
  } else {
    line = fmt::format("{}: {} {} | {} {}/s | {:.1f}s", label_, done, unit_, human_rate(rate), unit_, elapsed);
  }
  if (!extra.empty()) line += " | " + extra;
  if (tty_)
    std::fprintf(stderr, "\r\033[2K%s%s", line.c_str(), final ? "\n" : "");
  else
    std::fprintf(stderr, "%s\n", line.c_str());
  std::fflush(stderr);
}

}  // namespace loom::core
