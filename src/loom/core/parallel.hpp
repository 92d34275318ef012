// Parallel loops over index ranges with OpenMP, with exceptions carried out of the region
// (an exception escaping an OpenMP region aborts the process) and rethrown on the caller.
// parallel_for(n, fn) calls fn(i) for i in [0, n); parallel_for_blocks(n, block, fn) calls
// fn(begin, end, block_index) for fixed-size blocks, so work seeded per block is identical
// at any thread count. set_num_threads() sets the OpenMP (and so OpenBLAS) thread count.
// first_failing(n, ok) finds the lowest index where a check fails, in parallel.
#pragma once

#include <atomic>
#include <cstdint>
#include <exception>
#include <mutex>
#include <string>

#include <omp.h>

namespace loom::core {

void set_num_threads(int threads);  // <= 0: leave the default (all cores)
int num_threads();

// The most threads a command may ask for: kThreadsPerCoreLimit per core of this host (a little
// oversubscription can help a run that waits; thousands of threads only thrash, and a run busy
// creating them answers no signal).
inline constexpr int kThreadsPerCoreLimit = 4;
int max_threads();
// Throws Error naming `argument` unless 0 <= threads <= max_threads() (0 = the command's default).
void check_thread_count(std::int64_t threads, const std::string& argument);

class ExceptionCarrier {
 public:
  template <class F>
  void run(F&& f) noexcept {
    try {
      f();
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!error_) error_ = std::current_exception();
      failed_.store(true, std::memory_order_release);
    }
  }
  // Read by every iteration without the lock (found by ThreadSanitizer: exception_ptr is not atomic).
  bool failed() const { return failed_.load(std::memory_order_acquire); }
  void rethrow() const {
    if (error_) std::rethrow_exception(error_);
  }

 private:
  std::mutex mutex_;
  std::exception_ptr error_;
  std::atomic<bool> failed_{false};
};

template <class F>
void parallel_for(std::int64_t n, F&& fn, std::int64_t grain = 1024) {
  ExceptionCarrier carrier;
#pragma omp parallel for schedule(dynamic, grain) if (n > grain)
  for (std::int64_t i = 0; i < n; ++i) {
    if (!carrier.failed()) carrier.run([&] { fn(i); });
  }
  carrier.rethrow();
}

template <class F>
void parallel_for_blocks(std::int64_t n, std::int64_t block, F&& fn) {
  if (n <= 0) return;
  const std::int64_t blocks = (n + block - 1) / block;
  ExceptionCarrier carrier;
#pragma omp parallel for schedule(dynamic, 1) if (blocks > 1)
  for (std::int64_t b = 0; b < blocks; ++b) {
    if (carrier.failed()) continue;
    const std::int64_t begin = b * block;
    const std::int64_t end = begin + block < n ? begin + block : n;
    carrier.run([&] { fn(begin, end, b); });
  }
  carrier.rethrow();
}

// The lowest i in [0, n) where ok(i) is false, or -1: blocks of 2^20 in parallel, those after a
// known failure skipped. For checks that name the first bad entry of a large array.
template <class Ok>
std::int64_t first_failing(std::int64_t n, Ok&& ok) {
  std::atomic<std::int64_t> first{n};
  parallel_for_blocks(n, std::int64_t{1} << 20, [&](std::int64_t begin, std::int64_t end, std::int64_t) {
    if (begin >= first.load(std::memory_order_relaxed)) return;
    for (std::int64_t i = begin; i < end; ++i) {
      if (!ok(i)) {
        std::int64_t seen = first.load(std::memory_order_relaxed);
        while (i < seen && !first.compare_exchange_weak(seen, i, std::memory_order_relaxed)) {}
        return;
      }
    }
  });
  const std::int64_t found = first.load();
  return found < n ? found : -1;
}

}  // namespace loom::core
