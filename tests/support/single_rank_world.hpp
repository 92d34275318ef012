// single_rank_world(): the world of one rank that single-process tests (trainers, scores) run in. MPI starts on
// the first call and is finalized at exit (it can start only once per process), so the tests that
// never ask for a world never start MPI: a test process is cheaper to start, and under
// AddressSanitizer it needs no slow unwinding for Open MPI's leak suppressions (scripts/sanitize).
#pragma once

#include "loom/comm/mpi_session.hpp"

namespace loom::testing {

inline comm::Communicator single_rank_world() {
  static const comm::MpiSession session;
  return session.world();
}

}  // namespace loom::testing
