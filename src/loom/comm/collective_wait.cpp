#include "loom/comm/collective_wait.hpp"

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>

#include <fmt/format.h>

namespace loom::comm {

namespace {

using SteadyClock = std::chrono::steady_clock;

struct Waits {
  std::mutex mutex;
  std::uint64_t next_id = 0;
  std::map<std::uint64_t, std::pair<SteadyClock::time_point, const char*>> open;  // by id: the oldest first
};

Waits& waits() {
  static Waits w;
  return w;
}

std::atomic<std::int64_t> g_epoch{-1}, g_step{-1};

}  // namespace

CollectiveWait::CollectiveWait(const char* what) {
  Waits& w = waits();
  const auto now = SteadyClock::now();
  std::lock_guard lock(w.mutex);
  id_ = w.next_id++;
  w.open.emplace(id_, std::make_pair(now, what));
}

CollectiveWait::~CollectiveWait() {
  Waits& w = waits();
  std::lock_guard lock(w.mutex);
  w.open.erase(id_);
}

std::optional<WaitInProgress> longest_wait() {
  Waits& w = waits();
  std::lock_guard lock(w.mutex);
  if (w.open.empty()) return std::nullopt;
  const auto& [since, what] = w.open.begin()->second;
  return WaitInProgress{std::chrono::duration<double>(SteadyClock::now() - since).count(), what};
}

std::string Progress::text() const {
  if (epoch < 0) return "";
  return step < 0 ? fmt::format("epoch {}", epoch) : fmt::format("epoch {}, step {}", epoch, step);
}

void set_progress(std::int64_t epoch, std::int64_t step) {
  g_epoch.store(epoch, std::memory_order_relaxed);
  g_step.store(step, std::memory_order_relaxed);
}

Progress progress() { return {g_epoch.load(std::memory_order_relaxed), g_step.load(std::memory_order_relaxed)}; }

}  // namespace loom::comm
