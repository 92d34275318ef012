// Request: a pending non-blocking send or receive (Communicator::isend / irecv). wait() blocks
// until it completes, then counts it on its channel and applies link emulation (the transfer
// lasts at least latency + bytes/bandwidth from when it was posted, so computation done
// meanwhile hides it). A receive must deliver exactly the posted size, else wait() throws.
// Move-only; the buffer must stay alive until wait()/test() reports completion. Destroying a
// request that is still pending cancels it (nothing is counted) and waits for the cancel.
#pragma once

#include <memory>
#include <span>

namespace loom::comm {

class Request {
 public:
  Request();
  Request(Request&&) noexcept;
  Request& operator=(Request&&) noexcept;
  Request(const Request&) = delete;
  Request& operator=(const Request&) = delete;
  ~Request();

  // True until wait() (or a test() that returned true) completes it.
  bool active() const { return state_ != nullptr; }
  // Blocks until done. No-op on an inactive request.
  void wait();
  // Completes the request when the transfer is done (and the emulated time has passed).
  bool test();
  // Like wait(), but polls with test() and sleeps between polls (backing off to 1 ms), so a
  // rank that waits long (an idle pipeline stage) leaves its core to ranks that compute
  // instead of spinning in MPI. For waits where a millisecond of latency does not matter.
  void wait_idle();

  struct State;  // defined in mpi_detail.hpp

 private:
  friend class Communicator;
  explicit Request(std::unique_ptr<State> state);
  void cancel() noexcept;
  std::unique_ptr<State> state_;
};

// Waits for every request in order (each is a separate link transfer).
void wait_all(std::span<Request> requests);

}  // namespace loom::comm
