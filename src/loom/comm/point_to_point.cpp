// Point-to-point transfers of Communicator and the Request they return.
#include <algorithm>
#include <chrono>
#include <thread>
#include <utility>

#include "loom/comm/collective_wait.hpp"
#include "loom/comm/communicator.hpp"
#include "loom/comm/mpi_detail.hpp"

namespace loom::comm {

namespace {

void check_peer(const Communicator& comm, int peer, int tag, const char* what) {
  LOOM_CHECK(peer >= 0 && peer < comm.size(), "{}: rank {} outside [0, {})", what, peer, comm.size());
  LOOM_CHECK(tag >= 0 && tag <= kMaxTag, "{}: tag {} outside [0, {}]", what, tag, kMaxTag);
}

Traffic one_message(bool is_send, bool crosses_ranks, std::size_t bytes) {
  Traffic t;
  if (!crosses_ranks) return t;
  if (is_send)
    t = {1, bytes, 0, 0};
  else
    t = {0, 0, 1, bytes};
  return t;
}

void check_received(const MPI_Status& status, std::size_t expected, int source) {
  int count = 0;
  detail::check(MPI_Get_count(&status, MPI_BYTE, &count), "MPI_Get_count");
  LOOM_CHECK(static_cast<std::size_t>(count) == expected, "recv from rank {}: expected {} bytes, got {}", source,
             expected, count);
}

}  // namespace

void Communicator::send_raw(std::span<const std::byte> data, int dest, int tag, Channel channel) const {
  const CollectiveWait waiting("send");
  check_peer(*this, dest, tag, "send");
  detail::Shared& shared = *impl_->shared;
  const double start = shared.start();
  detail::check(MPI_Send(data.data(), detail::message_count(data.size(), "send"), MPI_BYTE, dest, tag, impl_->comm),
                "MPI_Send");
  shared.finish(channel, one_message(true, dest != rank(), data.size()), start);
}

void Communicator::recv_raw(std::span<std::byte> out, int source, int tag, Channel channel) const {
  const CollectiveWait waiting("receive");
  check_peer(*this, source, tag, "recv");
  detail::Shared& shared = *impl_->shared;
  const double start = shared.start();
  MPI_Status status;
  detail::check(
      MPI_Recv(out.data(), detail::message_count(out.size(), "recv"), MPI_BYTE, source, tag, impl_->comm, &status),
      "MPI_Recv");
  check_received(status, out.size(), source);
  shared.finish(channel, one_message(false, source != rank(), out.size()), start);
}

void Communicator::recv_any_raw(int source, int tag, Channel channel,
                                const std::function<std::byte*(std::size_t bytes)>& allocate) const {
  const CollectiveWait waiting("receive");
  check_peer(*this, source, tag, "recv");
  detail::Shared& shared = *impl_->shared;
  const double start = shared.start();
  // Matched probe: the message cannot be taken by another thread between probe and receive.
  MPI_Message message;
  MPI_Status status;
  detail::check(MPI_Mprobe(source, tag, impl_->comm, &message, &status), "MPI_Mprobe");
  int count = 0;
  detail::check(MPI_Get_count(&status, MPI_BYTE, &count), "MPI_Get_count");
  std::byte* buffer = nullptr;
  try {
    buffer = allocate(static_cast<std::size_t>(count));
  } catch (...) {
    // Still consume the message so it cannot match a later receive.
    std::vector<std::byte> discard(static_cast<std::size_t>(count));
    MPI_Mrecv(discard.data(), count, MPI_BYTE, &message, MPI_STATUS_IGNORE);
    throw;
  }
  detail::check(MPI_Mrecv(buffer, count, MPI_BYTE, &message, MPI_STATUS_IGNORE), "MPI_Mrecv");
  shared.finish(channel, one_message(false, source != rank(), static_cast<std::size_t>(count)), start);
}

Request Communicator::isend_raw(std::span<const std::byte> data, int dest, int tag, Channel channel) const {
  check_peer(*this, dest, tag, "isend");
  auto state = std::make_unique<Request::State>();
  state->shared = impl_->shared;
  state->channel = channel;
  state->is_send = true;
  state->crosses_ranks = dest != rank();
  state->bytes = data.size();
  state->peer = dest;
  state->start = state->shared->start();
  detail::check(MPI_Isend(data.data(), detail::message_count(data.size(), "isend"), MPI_BYTE, dest, tag, impl_->comm,
                          &state->request),
                "MPI_Isend");
  return Request(std::move(state));
}

Request Communicator::irecv_raw(std::span<std::byte> out, int source, int tag, Channel channel) const {
  check_peer(*this, source, tag, "irecv");
  auto state = std::make_unique<Request::State>();
  state->shared = impl_->shared;
  state->channel = channel;
  state->is_send = false;
  state->crosses_ranks = source != rank();
  state->bytes = out.size();
  state->peer = source;
  state->start = state->shared->start();
  detail::check(MPI_Irecv(out.data(), detail::message_count(out.size(), "irecv"), MPI_BYTE, source, tag, impl_->comm,
                          &state->request),
                "MPI_Irecv");
  return Request(std::move(state));
}

// ---- Request ----

Request::Request() = default;
Request::Request(std::unique_ptr<State> state) : state_(std::move(state)) {}
Request::Request(Request&&) noexcept = default;

Request& Request::operator=(Request&& other) noexcept {
  if (this != &other) {
    cancel();
    state_ = std::move(other.state_);
  }
  return *this;
}

Request::~Request() { cancel(); }

void Request::cancel() noexcept {
  if (!state_) return;
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized && state_->request != MPI_REQUEST_NULL) {
    MPI_Cancel(&state_->request);
    MPI_Wait(&state_->request, MPI_STATUS_IGNORE);
  }
  state_.reset();
}

void Request::wait() {
  const CollectiveWait waiting("wait for a message");
  if (!state_) return;
  if (state_->request != MPI_REQUEST_NULL) {  // else test() already saw the transfer finish
    MPI_Status status;
    detail::check(MPI_Wait(&state_->request, &status), "MPI_Wait");
    if (!state_->is_send) check_received(status, state_->bytes, state_->peer);
  }
  std::unique_ptr<State> done = std::move(state_);
  done->shared->finish(done->channel, one_message(done->is_send, done->crosses_ranks, done->bytes), done->start);
}

bool Request::test() {
  if (!state_) return true;
  int flag = 0;
  MPI_Status status;
  if (state_->request != MPI_REQUEST_NULL) {
    detail::check(MPI_Test(&state_->request, &flag, &status), "MPI_Test");
    if (!flag) return false;
    if (!state_->is_send) check_received(status, state_->bytes, state_->peer);
    state_->request = MPI_REQUEST_NULL;
  }
  // Transferred; complete once the emulated link time has passed too.
  const detail::Shared& shared = *state_->shared;
  if (shared.model.enabled() && state_->crosses_ranks &&
      shared.clock->now() < state_->start + shared.model.seconds(one_message(state_->is_send, true, state_->bytes))) {
    return false;
  }
  std::unique_ptr<State> done = std::move(state_);
  done->shared->finish(done->channel, one_message(done->is_send, done->crosses_ranks, done->bytes), done->start);
  return true;
}

void Request::wait_idle() {
  const CollectiveWait waiting("wait for a message");
  auto pause = std::chrono::microseconds(10);
  while (!test()) {
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(1000));
  }
}

void wait_all(std::span<Request> requests) {
  for (Request& r : requests) r.wait();
}

}  // namespace loom::comm
