// MPI start-up and the clean-exit protocol for multi-rank commands.
//
// MpiSession: RAII MPI_Init_thread(MPI_THREAD_MULTIPLE) / MPI_Finalize. A process started
// without mpirun becomes a world of size 1 (singleton init; works as root on OpenMPI 4.1
// without OMPI_ALLOW_RUN_AS_ROOT). MPI errors on the world communicator return codes that
// comm:: turns into loom::Error. If MPI is already initialized the session only borrows it.
// Unless OMPI_MCA_orte_execute_quiet is already set, it is set to 1 so that an abort_job()
// prints only Loom's own line, not Open MPI's MPI_ABORT banner.
//
// Exit protocol: (1) validate at checkpoints with Communicator::agree()/agree_on(): when any
// rank fails, every rank throws AgreedError with the lowest failing rank's message, all ranks
// unwind and finalize, exit non-zero, and only rank 0 prints. (2) run_job() wraps a command
// body: AgreedError -> rank 0 prints "loom: error: rank R: ..." once, all ranks synchronize
// (so the line is out before any rank exits), finalize and return 1; any other exception in a
// job of more than one rank -> abort_job(), since the other ranks may be blocked in a
// collective; in a world of size 1 it is rethrown for main() to print. (3) abort_job() is the
// last resort: one line on stderr, then MPI_Abort of the whole job (exit status 1). (4) For jobs
// of 2+ ranks run_job also runs a Watchdog (watchdog.hpp): a rank that stops answering ends the
// job with a line naming it after --comm-timeout seconds, instead of a hang.
// mpirun itself still notes "1 process returned a non-zero exit code" after an agreed failure;
// launch with `mpirun -q` (or OMPI_MCA_orte_execute_quiet=1) to silence that too.
#pragma once

#include <functional>
#include <string>

#include "loom/comm/communicator.hpp"

namespace loom::comm {

class MpiSession {
 public:
  MpiSession();   // throws Error when MPI lacks MPI_THREAD_MULTIPLE
  ~MpiSession();  // finalizes (if it initialized); see the unwinding rule in mpi_session.cpp
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  Communicator world() const { return Communicator::world(); }

 private:
  bool owns_ = false;
  int uncaught_at_start_ = 0;
};

// Runs body(world) inside an MpiSession with the protocol above; returns the exit status (the
// largest status any rank's body returned, or 1 after an agreed failure, already printed).
int run_job(const std::function<int(Communicator& world)>& body);

// How run_job ends on an agreed failure: rank 0 prints it and every rank returns 1 (a `loom`
// process), or every rank rethrows it for its host to report (Python's loom.run raises it as
// loom.AgreedError, so that a notebook gets the message and goes on).
enum class AgreedFailures { kPrintAndReturn, kRethrow };
void set_agreed_failures(AgreedFailures handling);

// How many ranks the launcher started, from its environment (OMPI_COMM_WORLD_SIZE, PMI_SIZE),
// without starting MPI: 1 outside mpirun. For commands that run in one process only.
int launched_ranks();

// Prints "loom: error: [rank R: ]message" and ends the whole job (MPI_Abort, or _Exit(1) when
// MPI is not running). Never returns.
[[noreturn]] void abort_job(const std::string& message);

}  // namespace loom::comm
