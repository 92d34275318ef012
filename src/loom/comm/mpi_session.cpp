#include "loom/comm/mpi_session.hpp"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <optional>

#include "loom/comm/mpi_detail.hpp"
#include "loom/comm/watchdog.hpp"

namespace loom::comm {

namespace detail {

namespace {
std::atomic<bool> g_agreed_failure{false};
}

void mark_agreed_failure() { g_agreed_failure.store(true); }
bool agreed_failure() { return g_agreed_failure.load(); }

}  // namespace detail

namespace {

bool mpi_running() {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  return initialized && !finalized;
}

}  // namespace

MpiSession::MpiSession() : uncaught_at_start_(std::uncaught_exceptions()) {
  if (mpi_running()) return;
  setenv("OMPI_MCA_orte_execute_quiet", "1", /*overwrite=*/0);
  int provided = 0;
  if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS) {
    throw Error("MPI_Init_thread failed");
  }
  owns_ = true;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  if (provided < MPI_THREAD_MULTIPLE) {
    MPI_Finalize();
    owns_ = false;
    throw Error("the MPI library does not provide MPI_THREAD_MULTIPLE (Loom needs it for background transfers)");
  }
}

// Unwinding rule: leaving the session because of an exception that the ranks did not agree on
// (not an AgreedError) in a job of more than one rank would hang in MPI_Finalize while other
// ranks wait in a collective, so the job is aborted instead.
MpiSession::~MpiSession() {
  if (!owns_ || !mpi_running()) return;
  if (std::uncaught_exceptions() > uncaught_at_start_ && !detail::agreed_failure()) {
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > 1) abort_job("unhandled error (not agreed by all ranks); aborting the job");
  }
  MPI_Finalize();
}

namespace {
std::atomic<AgreedFailures> g_agreed_failures{AgreedFailures::kPrintAndReturn};
}  // namespace

void set_agreed_failures(AgreedFailures handling) { g_agreed_failures.store(handling); }

int run_job(const std::function<int(Communicator& world)>& body) {
  MpiSession session;
  Communicator world = session.world();
  std::optional<Watchdog> watchdog;
  if (world.size() > 1 && watchdog_timeout() > 0) watchdog.emplace(world, watchdog_timeout());
  int status = 0;
  try {
    status = body(world);
  } catch (const AgreedError& e) {
    if (g_agreed_failures == AgreedFailures::kRethrow) throw;
    // Print before any rank exits: mpirun kills the job when the first rank exits non-zero.
    if (world.rank() == 0) {
      std::fprintf(stderr, "loom: error: %s\n", e.what());
      std::fflush(stderr);
    }
    world.barrier();
    return 1;
  } catch (const std::exception& e) {
    if (world.size() > 1) abort_job(e.what());
    throw;
  }
  return world.allreduce_max(status, Channel::control);
}

void abort_job(const std::string& message) {
  if (mpi_running()) {
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > 1)
      std::fprintf(stderr, "loom: error: rank %d: %s\n", rank, message.c_str());
    else
      std::fprintf(stderr, "loom: error: %s\n", message.c_str());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
  } else {
    std::fprintf(stderr, "loom: error: %s\n", message.c_str());
    std::fflush(stderr);
  }
  std::_Exit(1);
}

int launched_ranks() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"})
    if (const char* value = std::getenv(name)) return std::max(1, std::atoi(value));
  return 1;
}

}  // namespace loom::comm
