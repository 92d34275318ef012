// Communicator: the only code in Loom that talks to MPI. It wraps one MPI communicator and
// offers the collectives and point-to-point transfers the trainers need; every call names a
// Channel and adds what crossed ranks to per-channel counters (stats()), and every call is
// slowed by link emulation when a LinkModel is set (link_model.hpp).
//
// Counting rules (payload bytes of T, never a rank's data to itself; metadata such as the size
// exchange inside alltoallv/allgatherv/gatherv/recv-any-size is not counted):
//   alltoallv   each peer with a non-empty buffer: one message of its bytes, each way.
//   allreduce   what a ring all-reduce moves: 2(P-1) messages and 2(P-1)/P * bytes sent and
//               the same received, on every rank (P = size()); nothing when P == 1.
//   broadcast   root sends P-1 messages of the bytes; every other rank receives one.
//   allgather(v) each rank sends its data to each of the P-1 others and receives theirs.
//   gatherv     non-roots send one message of their data; the root receives P-1.
//   send/recv, isend/irecv   one message of the bytes (counted at completion).
//   agree       counted on Channel::control (an allreduce of an int, plus the message on failure).
//   count_device  Channel::device: one message per copy between this rank's host memory and its GPU.
//
// Threads: one Communicator is used by one thread at a time. dup() gives another communicator
// over a duplicated MPI communicator that shares the same counters, link model and clock, so a
// background thread (feature fetch) and the main thread (gradient all-reduce) can communicate
// concurrently (MpiSession initializes MPI with MPI_THREAD_MULTIPLE). dup() is collective.
// Errors: MPI failures and bad arguments throw loom::Error. In a multi-rank job, a rank that
// throws while others wait in a collective leaves them hanging: validate at checkpoints with
// agree()/agree_on() so every rank throws together (mpi_session.hpp has the exit protocol).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <ranges>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "loom/comm/channel.hpp"
#include "loom/comm/link_model.hpp"
#include "loom/comm/request.hpp"
#include "loom/comm/stats.hpp"
#include "loom/core/error.hpp"

namespace loom::comm {

// Element types that travel as raw bytes.
template <class T>
concept Wire = std::is_trivially_copyable_v<T>;

// Element types the all-reduce operations accept.
template <class T>
concept Reducible = std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, std::int32_t> ||
    std::is_same_v<T, std::int64_t> || std::is_same_v<T, std::uint64_t>;

// A writable contiguous range of Reducible elements (std::vector<float>&, std::span<double>, ...).
template <class R>
concept ReducibleRange =
    std::ranges::contiguous_range<R> && std::ranges::sized_range<R> && Reducible<std::ranges::range_value_t<R>> &&
    !std::is_const_v<std::remove_reference_t<std::ranges::range_reference_t<R>>>;

enum class ReduceOp : std::uint8_t { sum, max, min };

// Tags for send/recv/isend/irecv must lie in [0, kMaxTag].
inline constexpr int kMaxTag = 32000;

class Communicator {
 public:
  // MPI_COMM_WORLD. MPI must be initialized (MpiSession or run_job); every world() handle
  // shares one set of counters, link model and clock.
  static Communicator world();

  Communicator(Communicator&&) noexcept;
  Communicator& operator=(Communicator&&) noexcept;
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;
  ~Communicator();

  int rank() const;
  int size() const;
  // Collective. A new MPI communicator with the same ranks; shares counters, model and clock.
  Communicator dup() const;
  // Collective. Like dup(), but with counters of its own and no link emulation: for traffic that
  // is not the run's own (the watchdog's heartbeats), so that the run's reports stay exact.
  Communicator separate_dup() const;
  // Collective. The ranks that pass the same color (>= 0) form a new communicator, ordered by
  // key (then by rank here); it shares counters, model and clock like dup().
  Communicator split(int color, int key) const;
  // Collective; moves no payload and is not counted or emulated.
  void barrier() const;
  // The same, sleeping between tests rather than spinning, so that ranks waiting in it leave the
  // cores to those still working (oversubscribed ranks).
  void barrier_sleeping() const;
  // The same, giving up after `seconds`: false when some rank did not arrive by then (it is
  // still working, or waits in a collective this rank did not call). The barrier is then left
  // pending: the caller ends the job.
  bool barrier_within(double seconds) const;
  // Collective. How many ranks of this communicator share this rank's machine (this one included).
  int ranks_on_this_node() const;
  // Collective. For every rank of this communicator, the lowest rank on its machine (ranks on one
  // machine share it); one allgather of an int on Channel::control.
  std::vector<int> machine_of_ranks() const;

  // --- counters, link emulation, settings (shared with every dup()) ---
  CommStats stats() const;
  void reset_stats();
  // Counts one copy of `bytes` from host memory to this rank's device (to_device) or back on
  // Channel::device; moves nothing. Safe from any thread (the counters are atomic).
  void count_device(std::uint64_t bytes, bool to_device) const;
  // Set before communicating (not synchronized with calls running on other threads).
  void set_link_model(const LinkModel& model);
  LinkModel link_model() const;
  // The time source emulation sleeps on (default system_clock()).
  void set_clock(std::shared_ptr<Clock> clock);
  // Largest single MPI message that alltoallv/allgatherv/gatherv/broadcast post; larger
  // buffers travel in several (still counted as one message). Default 1 GiB.
  void set_max_message_bytes(std::size_t bytes);
  // Collective, not counted: every rank's `local` combined (sum and max everywhere, per-rank
  // table on `root`). Usually `global_stats(stats())` at the end of an epoch on every rank.
  GlobalCommStats global_stats(const CommStats& local, int root = 0) const;

  // --- collectives (every rank must call, in the same order) ---

  // send[p] goes to rank p (send.size() == size()); returns recv with recv[p] from rank p.
  // Buffers may be empty or differ in size; send[rank()] is copied to recv[rank()].
  template <Wire T>
  std::vector<std::vector<T>> alltoallv(const std::vector<std::vector<T>>& send, Channel channel) const;

  // In-place element-wise reduction over all ranks (any contiguous range of float, double,
  // int32, int64 or uint64), or of one value (returned).
  template <ReducibleRange R>
  void allreduce(R&& data, ReduceOp op, Channel channel) const {
    using T = std::ranges::range_value_t<R>;
    allreduce_raw(std::ranges::data(data), std::ranges::size(data), dtype_of<T>(), op, channel);
  }
  template <ReducibleRange R>
  void allreduce_sum(R&& data, Channel channel) const {
    allreduce(data, ReduceOp::sum, channel);
  }
  template <ReducibleRange R>
  void allreduce_max(R&& data, Channel channel) const {
    allreduce(data, ReduceOp::max, channel);
  }
  template <ReducibleRange R>
  void allreduce_min(R&& data, Channel channel) const {
    allreduce(data, ReduceOp::min, channel);
  }
  template <Reducible T>
  T allreduce_sum(T value, Channel channel) const {
    return reduce_one(value, ReduceOp::sum, channel);
  }
  // Named fields of one type reduced over all ranks in one message (a record's totals):
  //   sum_fields(channel, totals.rows, totals.bytes);
  template <Reducible T, class... Rest>
  void reduce_fields(ReduceOp op, Channel channel, T& first, Rest&... rest) const {
    std::array<T, 1 + sizeof...(Rest)> packed{first, rest...};
    allreduce(packed, op, channel);
    std::size_t i = 0;
    first = packed[i++];
    ((rest = packed[i++]), ...);
  }
  template <Reducible T, class... Rest>
  void sum_fields(Channel channel, T& first, Rest&... rest) const {
    reduce_fields(ReduceOp::sum, channel, first, rest...);
  }
  template <Reducible T, class... Rest>
  void max_fields(Channel channel, T& first, Rest&... rest) const {
    reduce_fields(ReduceOp::max, channel, first, rest...);
  }
  template <Reducible T>
  T allreduce_max(T value, Channel channel) const {
    return reduce_one(value, ReduceOp::max, channel);
  }
  template <Reducible T>
  T allreduce_min(T value, Channel channel) const {
    return reduce_one(value, ReduceOp::min, channel);
  }

  // root's data to every rank; the size must already agree on all ranks.
  template <Wire T>
  void broadcast(std::span<T> data, int root, Channel channel) const {
    broadcast_raw(std::as_writable_bytes(data), root, channel);
  }
  // root's vector/string to every rank (others are resized to match).
  template <Wire T>
  void broadcast(std::vector<T>& data, int root, Channel channel) const {
    data.resize(static_cast<std::size_t>(broadcast_count(static_cast<std::int64_t>(data.size()), root)));
    broadcast(std::span<T>(data), root, channel);
  }
  void broadcast(std::string& text, int root, Channel channel) const;

  // One value per rank, indexed by rank.
  template <Wire T>
  std::vector<T> allgather(const T& value, Channel channel) const;
  // Each rank's data on every rank, indexed by rank.
  template <Wire T>
  std::vector<std::vector<T>> allgatherv(std::span<const T> local, Channel channel) const;
  // Each rank's data on `root` (indexed by rank); other ranks get an empty vector.
  template <Wire T>
  std::vector<std::vector<T>> gatherv(std::span<const T> local, Channel channel, int root = 0) const;

  // --- point to point (at most 2 GiB per message) ---
  template <Wire T>
  void send(std::span<const T> data, int dest, int tag, Channel channel) const {
    send_raw(std::as_bytes(data), dest, tag, channel);
  }
  // Receives exactly out.size() elements (throws on a size mismatch).
  template <Wire T>
  void recv(std::span<T> out, int source, int tag, Channel channel) const {
    recv_raw(std::as_writable_bytes(out), source, tag, channel);
  }
  // Receives a message of any size.
  template <Wire T>
  std::vector<T> recv(int source, int tag, Channel channel) const;
  template <Wire T>
  Request isend(std::span<const T> data, int dest, int tag, Channel channel) const {
    return isend_raw(std::as_bytes(data), dest, tag, channel);
  }
  template <Wire T>
  Request irecv(std::span<T> out, int source, int tag, Channel channel) const {
    return irecv_raw(std::as_writable_bytes(out), source, tag, channel);
  }

  // --- clean failure ---
  // Collective checkpoint. When any rank passes ok == false, every rank throws AgreedError
  // carrying the lowest failing rank's message ("rank R: message" when size() > 1).
  void agree(bool ok, const std::string& message) const;
  // Runs step() and then agree(): an exception from step() on any rank (its what() as the
  // message) becomes an AgreedError on every rank.
  void agree_on(const std::function<void()>& step) const;

  struct Impl;  // defined in mpi_detail.hpp
  // The MPI handle behind this communicator, for comm's own files that pass it to an MPI library
  // (ptscotch_partition.cpp); opaque elsewhere.
  const Impl& impl() const { return *impl_; }

 private:
  enum class DType : std::uint8_t { f32, f64, i32, i64, u64 };
  template <class T>
  static constexpr DType dtype_of() {
    if constexpr (std::is_same_v<T, float>)
      return DType::f32;
    else if constexpr (std::is_same_v<T, double>)
      return DType::f64;
    else if constexpr (std::is_same_v<T, std::int32_t>)
      return DType::i32;
    else if constexpr (std::is_same_v<T, std::int64_t>)
      return DType::i64;
    else
      return DType::u64;
  }
  template <Reducible T>
  T reduce_one(T value, ReduceOp op, Channel channel) const {
    allreduce_raw(&value, 1, dtype_of<T>(), op, channel);
    return value;
  }

  explicit Communicator(std::unique_ptr<Impl> impl);
  void allreduce_raw(void* data, std::size_t count, DType type, ReduceOp op, Channel channel) const;
  void broadcast_raw(std::span<std::byte> data, int root, Channel channel) const;
  std::int64_t broadcast_count(std::int64_t count, int root) const;
  // Uncounted metadata: send_counts[p] to rank p, returns what each rank sent here.
  std::vector<std::int64_t> exchange_counts(const std::vector<std::int64_t>& send_counts) const;
  std::vector<std::int64_t> allgather_counts(std::int64_t count) const;
  // send[p] to rank p and recv[p] from rank p (sizes already agreed; self entries empty).
  void exchange(const std::vector<std::span<const std::byte>>& send, const std::vector<std::span<std::byte>>& recv,
                Channel channel) const;
  void send_raw(std::span<const std::byte> data, int dest, int tag, Channel channel) const;
  void recv_raw(std::span<std::byte> out, int source, int tag, Channel channel) const;
  // Receives one message of unknown size into the buffer allocate(bytes) returns.
  void recv_any_raw(int source, int tag, Channel channel,
                    const std::function<std::byte*(std::size_t bytes)>& allocate) const;
  Request isend_raw(std::span<const std::byte> data, int dest, int tag, Channel channel) const;
  Request irecv_raw(std::span<std::byte> out, int source, int tag, Channel channel) const;

  std::unique_ptr<Impl> impl_;
};

// Thrown on every rank by agree() when some rank failed.
class AgreedError : public Error {
 public:
  AgreedError(int failing_rank, const std::string& message) : Error(message), failing_rank_(failing_rank) {}
  int failing_rank() const { return failing_rank_; }

 private:
  int failing_rank_;
};

// ---- template definitions ----

template <Wire T>
std::vector<std::vector<T>> Communicator::alltoallv(const std::vector<std::vector<T>>& send, Channel channel) const {
  const int p_count = size();
  LOOM_CHECK(send.size() == static_cast<std::size_t>(p_count), "alltoallv: {} send buffers for {} ranks", send.size(),
             p_count);
  std::vector<std::int64_t> counts(send.size());
  for (std::size_t p = 0; p < send.size(); ++p) counts[p] = static_cast<std::int64_t>(send[p].size());
  const std::vector<std::int64_t> recv_counts = exchange_counts(counts);
  std::vector<std::vector<T>> recv(send.size());
  std::vector<std::span<const std::byte>> out(send.size());
  std::vector<std::span<std::byte>> in(send.size());
  for (int p = 0; p < p_count; ++p) {
    if (p == rank()) {
      recv[p] = send[p];
      continue;
    }
    recv[p].resize(static_cast<std::size_t>(recv_counts[p]));
    out[p] = std::as_bytes(std::span<const T>(send[p]));
    in[p] = std::as_writable_bytes(std::span<T>(recv[p]));
  }
  exchange(out, in, channel);
  return recv;
}

template <Wire T>
std::vector<T> Communicator::allgather(const T& value, Channel channel) const {
  std::vector<std::vector<T>> all = allgatherv(std::span<const T>(&value, 1), channel);
  std::vector<T> out;
  out.reserve(all.size());
  for (const std::vector<T>& v : all) out.push_back(v.front());
  return out;
}

template <Wire T>
std::vector<std::vector<T>> Communicator::allgatherv(std::span<const T> local, Channel channel) const {
  const std::vector<std::int64_t> counts = allgather_counts(static_cast<std::int64_t>(local.size()));
  std::vector<std::vector<T>> all(counts.size());
  std::vector<std::span<const std::byte>> out(counts.size());
  std::vector<std::span<std::byte>> in(counts.size());
  for (std::size_t p = 0; p < counts.size(); ++p) {
    if (static_cast<int>(p) == rank()) {
      all[p].assign(local.begin(), local.end());
      continue;
    }
    all[p].resize(static_cast<std::size_t>(counts[p]));
    out[p] = std::as_bytes(local);
    in[p] = std::as_writable_bytes(std::span<T>(all[p]));
  }
  exchange(out, in, channel);
  return all;
}

template <Wire T>
std::vector<std::vector<T>> Communicator::gatherv(std::span<const T> local, Channel channel, int root) const {
  LOOM_CHECK(root >= 0 && root < size(), "gatherv: root {} outside [0, {})", root, size());
  // Counts travel to the root through the all-to-all of counts (uncounted metadata).
  std::vector<std::int64_t> counts(static_cast<std::size_t>(size()), 0);
  counts[static_cast<std::size_t>(root)] = static_cast<std::int64_t>(local.size());
  const std::vector<std::int64_t> recv_counts = exchange_counts(counts);
  std::vector<std::vector<T>> all(rank() == root ? counts.size() : 0);
  std::vector<std::span<const std::byte>> out(counts.size());
  std::vector<std::span<std::byte>> in(counts.size());
  if (rank() == root) {
    for (std::size_t p = 0; p < counts.size(); ++p) {
      if (static_cast<int>(p) == root) {
        all[p].assign(local.begin(), local.end());
        continue;
      }
      all[p].resize(static_cast<std::size_t>(recv_counts[p]));
      in[p] = std::as_writable_bytes(std::span<T>(all[p]));
    }
  } else {
    out[static_cast<std::size_t>(root)] = std::as_bytes(local);
  }
  exchange(out, in, channel);
  return all;
}

template <Wire T>
std::vector<T> Communicator::recv(int source, int tag, Channel channel) const {
  std::vector<T> out;
  recv_any_raw(source, tag, channel, [&](std::size_t bytes) {
    LOOM_CHECK(bytes % sizeof(T) == 0, "recv from rank {}: {} bytes is not a whole number of {}-byte elements", source,
               bytes, sizeof(T));
    out.resize(bytes / sizeof(T));
    return reinterpret_cast<std::byte*>(out.data());
  });
  return out;
}

}  // namespace loom::comm
