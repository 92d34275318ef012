// One MPI session (a world of one rank) for the whole test_train binary: MPI can be initialized
// only once per process, so tests must not open their own MpiSession.
#include <memory>

#include <gtest/gtest.h>

#include "loom/comm/mpi_session.hpp"

namespace {

class MpiEnvironment : public ::testing::Environment {
 public:
  void SetUp() override { session_ = std::make_unique<loom::comm::MpiSession>(); }
  void TearDown() override { session_.reset(); }

 private:
  std::unique_ptr<loom::comm::MpiSession> session_;
};

[[maybe_unused]] auto* const kMpiEnvironment = ::testing::AddGlobalTestEnvironment(new MpiEnvironment);

}  // namespace
