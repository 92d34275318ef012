// Internal to loom/comm (not for other modules): the MPI handles behind Communicator and
// Request, the state their dup()s share, and the one function that counts an operation and
// applies link emulation to it. The only header in Loom that includes <mpi.h>.
#pragma once

#include <cstddef>
#include <memory>

#include <mpi.h>

#include "loom/comm/communicator.hpp"

namespace loom::comm::detail {

// Shared by a communicator and all its duplicates (and their pending requests).
struct Shared {
  Counters counters;
  LinkModel model;
  std::shared_ptr<Clock> clock = system_clock();
  std::size_t max_message_bytes = std::size_t{1} << 30;

  // Clock reading to pass to finish() (0 when emulation is off: no clock call then).
  double start() const { return model.enabled() ? clock->now() : 0.0; }
  // Adds `traffic` to `channel` and delays until start + modeled time.
  void finish(Channel channel, const Traffic& traffic, double start_time);
};

// Throws loom::Error("<what>: <MPI error string>") when rc is not MPI_SUCCESS.
void check(int rc, const char* what);

// A message of `bytes` as an MPI int count (throws above the 2 GiB point-to-point limit).
int message_count(std::size_t bytes, const char* what);

// Set by agree() just before every rank throws AgreedError, so that an MpiSession unwinding
// because of it finalizes normally instead of aborting the job.
void mark_agreed_failure();
bool agreed_failure();

}  // namespace loom::comm::detail

namespace loom::comm {

struct Communicator::Impl {
  MPI_Comm comm = MPI_COMM_NULL;
  bool owned = false;  // freed on destruction (dup()s)
  int rank = 0;
  int size = 1;
  std::shared_ptr<detail::Shared> shared;
};

struct Request::State {
  MPI_Request request = MPI_REQUEST_NULL;
  std::shared_ptr<detail::Shared> shared;
  Channel channel = Channel::control;
  bool is_send = false;
  bool crosses_ranks = false;  // false for a message to or from this rank itself
  std::size_t bytes = 0;
  int peer = 0;
  double start = 0;
};

}  // namespace loom::comm
