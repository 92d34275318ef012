// cpu_threads_per_rank: an explicit count wins; otherwise the cores are shared among the ranks.

#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>

#include "loom/nn/runtime.hpp"

namespace loom::nn {
namespace {

TEST(CpuThreadsPerRank, SharesTheCoresAmongTheRanksOnTheMachine) {
  const int cores = omp_get_num_procs();
  EXPECT_EQ(cpu_threads_per_rank(3, 4), 3);
  EXPECT_EQ(cpu_threads_per_rank(0, 1), cores);
  EXPECT_EQ(cpu_threads_per_rank(0, 2), std::max(1, cores / 2));
  EXPECT_EQ(cpu_threads_per_rank(0, 4 * cores), 1);
}

}  // namespace
}  // namespace loom::nn
