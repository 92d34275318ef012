// A cap on OpenMP threads below --threads (OMP_THREAD_LIMIT, as batch schedulers set it):
// training runs on the threads the cap allows and ends. OpenBLAS's threaded GEMM, told of more
// threads than OpenMP then starts, used to wait for the missing ones forever; `timeout` turns
// such a hang into a failure here.
#include <gtest/gtest.h>

#include <string>

#include "support/test_support.hpp"

namespace loom {
namespace {

TEST(CliThreadLimit, TrainingUnderAnOpenMpThreadLimitFinishes) {
  test::ScratchDir dir;
  auto r = test::run_loom("generate sbm -o " + (dir / "g") +
                          " --nodes 1200 --classes 4 --avg-degree 6 --feat-dim 16 --seed 1");
  ASSERT_EQ(r.status, 0) << r.output;
  r = test::run_command("OMP_THREAD_LIMIT=1 timeout 120 " + test::loom_binary() + " train " + (dir / "g") +
                        " --threads 2 --epochs 1 --hidden 32 --eval-every 0 --quiet");
  ASSERT_NE(r.status, 124) << "training under OMP_THREAD_LIMIT=1 hung:\n" << r.output;
  EXPECT_EQ(r.status, 0) << r.output;
}

}  // namespace
}  // namespace loom
