#include "loom/core/private_peak.hpp"

#include <algorithm>

#include "loom/core/memory.hpp"

namespace loom::core {

PrivatePeak::PrivatePeak(std::chrono::milliseconds period) : period_(period) {
  sample();
  thread_ = std::thread([this] {
    std::unique_lock lock(mutex_);
    while (!wake_.wait_for(lock, period_, [this] { return stop_; })) sample();
  });
}

PrivatePeak::~PrivatePeak() {
  {
    const std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void PrivatePeak::sample() {
  const std::int64_t now = private_resident_bytes();
  std::int64_t seen = peak_.load();
  while (now > seen && !peak_.compare_exchange_weak(seen, now)) {}
}

std::int64_t PrivatePeak::bytes() {
  sample();
  return std::max<std::int64_t>(0, peak_.load());
}

}  // namespace loom::core
