// test_cuda's main: GoogleTest, then MPI (which the tests that need a world start) finalized before
// the process's exit handlers run, as `loom` finalizes it before main returns, rather than by the
// static session's destructor at exit. LOOM_TEST_FINALIZE_AT_EXIT=1 leaves it to that destructor
// (scripts/device-check runs one test so, under cuda-gdb, to show where finalizing at exit fails).
#include <cstdlib>

#include <gtest/gtest.h>
#include <mpi.h>

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  const int failed = RUN_ALL_TESTS();
  int started = 0, finalized = 0;
  MPI_Initialized(&started);
  MPI_Finalized(&finalized);
  if (started && !finalized && std::getenv("LOOM_TEST_FINALIZE_AT_EXIT") == nullptr) MPI_Finalize();
  return failed;
}
