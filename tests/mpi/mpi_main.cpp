// Shared main of the multi-rank test binaries (tests/mpi/*_test.cpp, run by ctest under
// mpirun -np 2 and 4). MPI starts with MPI_THREAD_MULTIPLE; every rank runs every test; rank 0
// prints the usual gtest output and other ranks print only their failures, prefixed with the
// rank. The exit status is combined over ranks, so a failure on any rank fails the test.
// Tests must reach every collective on every rank: prefer EXPECT_* to ASSERT_* before one.
#include <cstdio>
#include <string>

#include <gtest/gtest.h>

#include "loom/comm/communicator.hpp"
#include "loom/comm/mpi_session.hpp"

namespace {

// Prints "[rank R] file:line: message" for each failed assertion on a non-zero rank.
class RankFailurePrinter : public ::testing::EmptyTestEventListener {
 public:
  explicit RankFailurePrinter(int rank) : rank_(rank) {}
  void OnTestStart(const ::testing::TestInfo& info) override {
    test_ = std::string(info.test_suite_name()) + "." + info.name();
  }
  // (gtest holds its own lock here: UnitTest::current_test_info() would deadlock.)
  void OnTestPartResult(const ::testing::TestPartResult& result) override {
    if (!result.failed()) return;
    std::fprintf(stderr, "[rank %d] %s: %s:%d: %s\n", rank_, test_.c_str(),
                 result.file_name() ? result.file_name() : "?", result.line_number(), result.message());
    std::fflush(stderr);
  }

 private:
  int rank_;
  std::string test_;
};

}  // namespace

int main(int argc, char** argv) {
  loom::comm::MpiSession session;
  loom::comm::Communicator world = session.world();
  ::testing::InitGoogleTest(&argc, argv);
  if (world.rank() != 0) {
    ::testing::TestEventListeners& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new RankFailurePrinter(world.rank()));
  }
  const int status = RUN_ALL_TESTS() == 0 ? 0 : 1;
  return world.allreduce_max(status, loom::comm::Channel::control);
}
