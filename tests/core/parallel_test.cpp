#include "loom/core/parallel.hpp"

#include <gtest/gtest.h>

#include <atomic>

#include "loom/core/error.hpp"
#include "loom/core/thread_pool.hpp"

namespace loom::core {
namespace {

TEST(ParallelFor, ExceptionInsideRegionReachesCaller) {
  EXPECT_THROW(parallel_for(
                   100000,
                   [](std::int64_t i) {
                     if (i == 5000) throw Error("boom");
                   },
                   16),
               Error);
}

TEST(ParallelForBlocks, CoversRangeOnce) {
  std::vector<int> seen(1003, 0);
  parallel_for_blocks(1003, 100, [&](std::int64_t b, std::int64_t e, std::int64_t) {
    for (auto i = b; i < e; ++i) ++seen[i];
  });
  for (int s : seen) EXPECT_EQ(s, 1);
}

TEST(ThreadPool, FuturesCarryResultsAndExceptions) {
  ThreadPool pool(2);
  auto ok = pool.submit([] { return 41 + 1; });
  auto bad = pool.submit([]() -> int { throw Error("x"); });
  EXPECT_EQ(ok.get(), 42);
  EXPECT_THROW(bad.get(), Error);
}

TEST(BoundedQueue, CloseDrainsThenStops) {
  BoundedQueue<int> q(2);
  q.push(1);
  q.push(2);
  q.close();
  int v = 0;
  EXPECT_TRUE(q.pop(v));
  EXPECT_TRUE(q.pop(v));
  EXPECT_FALSE(q.pop(v));
  EXPECT_FALSE(q.push(3));
}

}  // namespace
}  // namespace loom::core
