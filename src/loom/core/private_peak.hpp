// PrivatePeak: the highest private resident memory of this process (RssAnon: its own pages, not
// the file pages it maps, which the page cache shares between processes) seen while the object
// lives, sampled on a thread of its own every `period`. Linux keeps no high-water mark for it
// (VmHWM counts mapped file pages too), and a memory plan's resident estimate is about it.
// bytes() is 0 where /proc cannot be read.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>

namespace loom::core {

class PrivatePeak {
 public:
  explicit PrivatePeak(std::chrono::milliseconds period = std::chrono::milliseconds(50));
  ~PrivatePeak();
  PrivatePeak(const PrivatePeak&) = delete;
  PrivatePeak& operator=(const PrivatePeak&) = delete;

  // The peak so far (also sampled now).
  std::int64_t bytes();

 private:
  void sample();
  std::chrono::milliseconds period_;
  std::atomic<std::int64_t> peak_{0};
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace loom::core
