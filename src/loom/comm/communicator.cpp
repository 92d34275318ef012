#include "loom/comm/communicator.hpp"

#include <algorithm>
#include <chrono>
#include <climits>
#include <thread>
#include <utility>

#include "loom/comm/collective_wait.hpp"
#include "loom/comm/mpi_detail.hpp"

namespace loom::comm {

namespace detail {

void Shared::finish(Channel channel, const Traffic& traffic, double start_time) {
  if (traffic.bytes_out > 0 || traffic.messages_out > 0)
    counters.add_sent(channel, traffic.bytes_out, traffic.messages_out);
  if (traffic.bytes_in > 0 || traffic.messages_in > 0)
    counters.add_received(channel, traffic.bytes_in, traffic.messages_in);
  if (!model.enabled()) return;
  counters.add_link_seconds(channel, model.seconds(traffic));
  emulate(model, *clock, start_time, traffic);
}

void check(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(rc, text, &length) != MPI_SUCCESS) length = 0;
  throw Error(fmt::format("{}: MPI error: {}", what, length > 0 ? std::string(text, length) : std::to_string(rc)));
}

int message_count(std::size_t bytes, const char* what) {
  LOOM_CHECK(bytes <= static_cast<std::size_t>(INT_MAX),
             "{}: a message of {} bytes exceeds the 2 GiB point-to-point limit; split it", what, bytes);
  return static_cast<int>(bytes);
}

}  // namespace detail

namespace {

constexpr int kExchangeTag = kMaxTag + 1;

bool mpi_ready() {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  return initialized && !finalized;
}

MPI_Datatype mpi_type(int dtype) {
  switch (dtype) {
    case 0: return MPI_FLOAT;
    case 1: return MPI_DOUBLE;
    case 2: return MPI_INT32_T;
    case 3: return MPI_INT64_T;
    default: return MPI_UINT64_T;
  }
}

std::size_t dtype_size(int dtype) {
  switch (dtype) {
    case 0: return 4;
    case 2: return 4;
    default: return 8;
  }
}

MPI_Op mpi_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::sum: return MPI_SUM;
    case ReduceOp::max: return MPI_MAX;
    case ReduceOp::min: return MPI_MIN;
  }
  return MPI_SUM;
}

// Per channel: bytes_sent, bytes_received, messages_sent, messages_received, link nanoseconds.
constexpr std::size_t kFields = 5;

std::vector<std::uint64_t> flatten(const CommStats& stats) {
  std::vector<std::uint64_t> out;
  out.reserve(kNumChannels * kFields);
  for (Channel c : kAllChannels) {
    const ChannelStats& s = stats[c];
    out.insert(out.end(), {s.bytes_sent, s.bytes_received, s.messages_sent, s.messages_received,
                           static_cast<std::uint64_t>(std::max(0.0, s.link_seconds) * 1e9 + 0.5)});
  }
  return out;
}

CommStats unflatten(const std::uint64_t* v) {
  CommStats out;
  for (Channel c : kAllChannels) {
    ChannelStats& s = out[c];
    s.bytes_sent = v[0];
    s.bytes_received = v[1];
    s.messages_sent = v[2];
    s.messages_received = v[3];
    s.link_seconds = static_cast<double>(v[4]) * 1e-9;
    v += kFields;
  }
  return out;
}

}  // namespace

Communicator Communicator::world() {
  LOOM_CHECK(mpi_ready(), "MPI is not initialized: run inside a comm::MpiSession (or comm::run_job)");
  static const std::shared_ptr<detail::Shared> world_shared = std::make_shared<detail::Shared>();
  auto impl = std::make_unique<Impl>();
  impl->comm = MPI_COMM_WORLD;
  impl->shared = world_shared;
  detail::check(MPI_Comm_rank(MPI_COMM_WORLD, &impl->rank), "MPI_Comm_rank");
  detail::check(MPI_Comm_size(MPI_COMM_WORLD, &impl->size), "MPI_Comm_size");
  return Communicator(std::move(impl));
}

Communicator::Communicator(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Communicator::Communicator(Communicator&&) noexcept = default;
Communicator& Communicator::operator=(Communicator&&) noexcept = default;

Communicator::~Communicator() {
  if (impl_ && impl_->owned && mpi_ready()) MPI_Comm_free(&impl_->comm);
}

int Communicator::rank() const { return impl_->rank; }
int Communicator::size() const { return impl_->size; }

Communicator Communicator::dup() const {
  auto impl = std::make_unique<Impl>(*impl_);
  detail::check(MPI_Comm_dup(impl_->comm, &impl->comm), "MPI_Comm_dup");
  impl->owned = true;
  return Communicator(std::move(impl));
}

Communicator Communicator::separate_dup() const {
  Communicator copy = dup();
  copy.impl_->shared = std::make_shared<detail::Shared>();
  return copy;
}

Communicator Communicator::split(int color, int key) const {
  LOOM_CHECK(color >= 0, "split: color {} must be >= 0", color);
  auto impl = std::make_unique<Impl>(*impl_);
  detail::check(MPI_Comm_split(impl_->comm, color, key, &impl->comm), "MPI_Comm_split");
  detail::check(MPI_Comm_rank(impl->comm, &impl->rank), "MPI_Comm_rank");
  detail::check(MPI_Comm_size(impl->comm, &impl->size), "MPI_Comm_size");
  impl->owned = true;
  return Communicator(std::move(impl));
}

void Communicator::barrier() const {
  const CollectiveWait waiting("barrier");
  detail::check(MPI_Barrier(impl_->comm), "MPI_Barrier");
}

void Communicator::barrier_sleeping() const {
  const CollectiveWait waiting("barrier");
  MPI_Request request = MPI_REQUEST_NULL;
  detail::check(MPI_Ibarrier(impl_->comm, &request), "MPI_Ibarrier");
  for (auto pause = std::chrono::microseconds(10);; pause = std::min(2 * pause, std::chrono::microseconds(1000))) {
    int done = 0;
    detail::check(MPI_Test(&request, &done, MPI_STATUS_IGNORE), "MPI_Test");
    if (done) return;
    std::this_thread::sleep_for(pause);
  }
}

bool Communicator::barrier_within(double seconds) const {
  MPI_Request request = MPI_REQUEST_NULL;
  detail::check(MPI_Ibarrier(impl_->comm, &request), "MPI_Ibarrier");
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  for (auto pause = std::chrono::microseconds(10);; pause = std::min(2 * pause, std::chrono::microseconds(10000))) {
    int done = 0;
    detail::check(MPI_Test(&request, &done, MPI_STATUS_IGNORE), "MPI_Test");
    if (done) return true;
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(pause);
  }
}

int Communicator::ranks_on_this_node() const {
  MPI_Comm node;
  detail::check(MPI_Comm_split_type(impl_->comm, MPI_COMM_TYPE_SHARED, impl_->rank, MPI_INFO_NULL, &node),
                "MPI_Comm_split_type");
  int size = 0;
  detail::check(MPI_Comm_size(node, &size), "MPI_Comm_size");
  detail::check(MPI_Comm_free(&node), "MPI_Comm_free");
  return size;
}

std::vector<int> Communicator::machine_of_ranks() const {
  MPI_Comm node;
  detail::check(MPI_Comm_split_type(impl_->comm, MPI_COMM_TYPE_SHARED, impl_->rank, MPI_INFO_NULL, &node),
                "MPI_Comm_split_type");
  int lowest = impl_->rank;
  detail::check(MPI_Allreduce(MPI_IN_PLACE, &lowest, 1, MPI_INT, MPI_MIN, node), "MPI_Allreduce");
  detail::check(MPI_Comm_free(&node), "MPI_Comm_free");
  return allgather(lowest, Channel::control);
}

CommStats Communicator::stats() const { return impl_->shared->counters.snapshot(); }
void Communicator::reset_stats() { impl_->shared->counters.reset(); }
void Communicator::count_device(std::uint64_t bytes, bool to_device) const {
  if (to_device)
    impl_->shared->counters.add_sent(Channel::device, bytes, 1);
  else
    impl_->shared->counters.add_received(Channel::device, bytes, 1);
}
void Communicator::set_link_model(const LinkModel& model) { impl_->shared->model = model; }
LinkModel Communicator::link_model() const { return impl_->shared->model; }

void Communicator::set_clock(std::shared_ptr<Clock> clock) {
  LOOM_CHECK(clock != nullptr, "set_clock: null clock");
  impl_->shared->clock = std::move(clock);
}

void Communicator::set_max_message_bytes(std::size_t bytes) {
  LOOM_CHECK(bytes > 0 && bytes <= static_cast<std::size_t>(INT_MAX), "set_max_message_bytes: {} outside [1, 2^31)",
             bytes);
  impl_->shared->max_message_bytes = bytes;
}

GlobalCommStats Communicator::global_stats(const CommStats& local, int root) const {
  const CollectiveWait waiting("gather of the traffic counters");
  LOOM_CHECK(root >= 0 && root < size(), "global_stats: root {} outside [0, {})", root, size());
  const std::vector<std::uint64_t> mine = flatten(local);
  const int n = static_cast<int>(mine.size());
  std::vector<std::uint64_t> sum(mine.size()), max(mine.size());
  detail::check(MPI_Allreduce(mine.data(), sum.data(), n, MPI_UINT64_T, MPI_SUM, impl_->comm), "MPI_Allreduce");
  detail::check(MPI_Allreduce(mine.data(), max.data(), n, MPI_UINT64_T, MPI_MAX, impl_->comm), "MPI_Allreduce");
  std::vector<std::uint64_t> table(rank() == root ? mine.size() * static_cast<std::size_t>(size()) : 0);
  detail::check(MPI_Gather(mine.data(), n, MPI_UINT64_T, table.data(), n, MPI_UINT64_T, root, impl_->comm),
                "MPI_Gather");
  GlobalCommStats out;
  out.sum = unflatten(sum.data());
  out.max = unflatten(max.data());
  for (std::size_t p = 0; p < table.size() / mine.size(); ++p)
    out.per_rank.push_back(unflatten(&table[p * mine.size()]));
  return out;
}

void Communicator::allreduce_raw(void* data, std::size_t count, DType type, ReduceOp op, Channel channel) const {
  const CollectiveWait waiting("allreduce");
  detail::Shared& shared = *impl_->shared;
  const double start = shared.start();
  const int t = static_cast<int>(type);
  const std::size_t elem = dtype_size(t);
  const std::size_t chunk = std::max<std::size_t>(1, shared.max_message_bytes / elem);
  auto* bytes = static_cast<std::byte*>(data);
  for (std::size_t done = 0; done < count; done += chunk) {
    const std::size_t n = std::min(chunk, count - done);
    detail::check(
        MPI_Allreduce(MPI_IN_PLACE, bytes + done * elem, static_cast<int>(n), mpi_type(t), mpi_op(op), impl_->comm),
        "MPI_Allreduce");
  }
  Traffic traffic;
  const std::uint64_t p = static_cast<std::uint64_t>(size());
  if (p > 1) {
    // Ring all-reduce: reduce-scatter then all-gather, each P-1 steps of bytes/P.
    const std::uint64_t moved = 2 * (p - 1) * static_cast<std::uint64_t>(count * elem) / p;
    traffic = {2 * (p - 1), moved, 2 * (p - 1), moved};
  }
  shared.finish(channel, traffic, start);
}

void Communicator::broadcast_raw(std::span<std::byte> data, int root, Channel channel) const {
  const CollectiveWait waiting("broadcast");
  LOOM_CHECK(root >= 0 && root < size(), "broadcast: root {} outside [0, {})", root, size());
  detail::Shared& shared = *impl_->shared;
  const double start = shared.start();
  for (std::size_t done = 0; done < data.size(); done += shared.max_message_bytes) {
    const std::size_t n = std::min(shared.max_message_bytes, data.size() - done);
    detail::check(MPI_Bcast(data.data() + done, static_cast<int>(n), MPI_BYTE, root, impl_->comm), "MPI_Bcast");
  }
  Traffic traffic;
  if (size() > 1 && !data.empty()) {
    if (rank() == root) {
      traffic.messages_out = static_cast<std::uint64_t>(size() - 1);
      traffic.bytes_out = traffic.messages_out * data.size();
    } else {
      traffic.messages_in = 1;
      traffic.bytes_in = data.size();
    }
  }
  shared.finish(channel, traffic, start);
}

std::int64_t Communicator::broadcast_count(std::int64_t count, int root) const {
  const CollectiveWait waiting("broadcast");
  LOOM_CHECK(root >= 0 && root < size(), "broadcast: root {} outside [0, {})", root, size());
  detail::check(MPI_Bcast(&count, 1, MPI_INT64_T, root, impl_->comm), "MPI_Bcast");
  return count;
}

void Communicator::broadcast(std::string& text, int root, Channel channel) const {
  text.resize(static_cast<std::size_t>(broadcast_count(static_cast<std::int64_t>(text.size()), root)));
  broadcast_raw(std::as_writable_bytes(std::span<char>(text)), root, channel);
}

std::vector<std::int64_t> Communicator::exchange_counts(const std::vector<std::int64_t>& send_counts) const {
  const CollectiveWait waiting("all-to-all of counts");
  std::vector<std::int64_t> recv_counts(send_counts.size());
  detail::check(MPI_Alltoall(send_counts.data(), 1, MPI_INT64_T, recv_counts.data(), 1, MPI_INT64_T, impl_->comm),
                "MPI_Alltoall");
  return recv_counts;
}

std::vector<std::int64_t> Communicator::allgather_counts(std::int64_t count) const {
  const CollectiveWait waiting("allgather of counts");
  std::vector<std::int64_t> counts(static_cast<std::size_t>(size()));
  detail::check(MPI_Allgather(&count, 1, MPI_INT64_T, counts.data(), 1, MPI_INT64_T, impl_->comm), "MPI_Allgather");
  return counts;
}

void Communicator::exchange(const std::vector<std::span<const std::byte>>& send,
                            const std::vector<std::span<std::byte>>& recv, Channel channel) const {
  const CollectiveWait waiting("all-to-all exchange");
  detail::Shared& shared = *impl_->shared;
  const double start = shared.start();
  const std::size_t chunk = shared.max_message_bytes;
  const int p_count = size();
  std::vector<MPI_Request> requests;
  Traffic traffic;
  // Peers in the order rank+1, rank+2, ... so that ranks do not all start on the same one.
  for (int step = 1; step < p_count; ++step) {
    const int from = (rank() - step + p_count) % p_count;
    std::span<std::byte> in = recv[static_cast<std::size_t>(from)];
    if (in.empty()) continue;
    traffic.messages_in += 1;
    traffic.bytes_in += in.size();
    for (std::size_t done = 0; done < in.size(); done += chunk) {
      const int n = static_cast<int>(std::min(chunk, in.size() - done));
      detail::check(MPI_Irecv(in.data() + done, n, MPI_BYTE, from, kExchangeTag, impl_->comm, &requests.emplace_back()),
                    "MPI_Irecv");
    }
  }
  for (int step = 1; step < p_count; ++step) {
    const int to = (rank() + step) % p_count;
    std::span<const std::byte> out = send[static_cast<std::size_t>(to)];
    if (out.empty()) continue;
    traffic.messages_out += 1;
    traffic.bytes_out += out.size();
    for (std::size_t done = 0; done < out.size(); done += chunk) {
      const int n = static_cast<int>(std::min(chunk, out.size() - done));
      detail::check(MPI_Isend(out.data() + done, n, MPI_BYTE, to, kExchangeTag, impl_->comm, &requests.emplace_back()),
                    "MPI_Isend");
    }
  }
  detail::check(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
  shared.finish(channel, traffic, start);
}

}  // namespace loom::comm
