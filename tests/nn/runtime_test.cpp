// cpu_threads_per_rank: an explicit count wins; otherwise the cores are shared among the ranks;
// never more than OMP_THREAD_LIMIT allows.

#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>

#include "loom/nn/runtime.hpp"

namespace loom::nn {
namespace {

TEST(CpuThreadsPerRank, SharesTheCoresAmongTheRanksOnTheMachine) {
  const int cores = omp_get_num_procs(), limit = omp_get_thread_limit();
  EXPECT_EQ(cpu_threads_per_rank(3, 4), std::min(3, limit));
  EXPECT_EQ(cpu_threads_per_rank(0, 1), std::min(cores, limit));
  EXPECT_EQ(cpu_threads_per_rank(0, 2), std::min(std::max(1, cores / 2), limit));
  EXPECT_EQ(cpu_threads_per_rank(0, 4 * cores), 1);
}

}  // namespace
}  // namespace loom::nn
