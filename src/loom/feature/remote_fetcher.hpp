// RemoteFetcher: gathers the rows of any global node ids for this rank, DistDGL-style: rows this
// rank owns are copied from its RowTable; the others are fetched from their owners by one
// batched request/response round (ids out, rows back) over comm::Channel::features, with rows
// on the wire as float32 or float16. Rows come out as float32, or as float16 (rounded as
// RowTable::row does; exact where the table holds float16 rows). fetch() is COLLECTIVE: every
// rank calls it the same number of times in the same order (trainers run the same number of steps
// on every rank); a rank with nothing to fetch still takes part. Ids may be given in any order;
// duplicates are allowed. A fetcher may run on a background thread if its Communicator is used by
// no other thread.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "loom/comm/communicator.hpp"
#include "loom/core/enum_names.hpp"
#include "loom/feature/row_table.hpp"
#include "loom/partition/partition_book.hpp"

namespace loom::feature {

enum class WireDType { kFloat32, kFloat16 };
inline constexpr core::EnumNames<WireDType, 2> kWireDTypeNames{
    {{"float32", WireDType::kFloat32}, {"float16", WireDType::kFloat16}}};

struct FetchStats {
  std::int64_t local_rows = 0;     // served from this rank's own rows
  std::int64_t device_rows = 0;    // of which left to the hot (device) tier
  std::int64_t cached_rows = 0;    // served from this rank's static cache of remote rows
  std::int64_t prefetch_hits = 0;  // served from this rank's prefetch buffer
  std::int64_t remote_rows = 0;    // fetched from other ranks (including prefetch replacements)
  std::int64_t prefetch_rows = 0;  // of which brought into the prefetch buffer
  std::int64_t bytes = 0;          // payload bytes this rank received for them (rows only)
  double seconds = 0;              // wall time of the fetch
  FetchStats& operator+=(const FetchStats& o);
};

class RemoteFetcher {
 public:
  // `local` holds the rows of the ids book.range(comm.rank()); comm's ranks are the parts.
  RemoteFetcher(const comm::Communicator& comm, const partition::PartitionBook& book, RowTable local, WireDType wire);

  std::int64_t dim() const { return local_.dim(); }
  const RowTable& local() const { return local_; }
  const partition::PartitionBook& book() const { return book_; }
  // The file span ranks sweep between two meetings where tables read in file order (default
  // 256 MiB: the page cache holds this span and the next one asked for ahead).
  void set_sweep_window_bytes(std::int64_t bytes) {
    sweep_window_bytes_ = bytes;
    sweep_windows_.reset();
  }
  int rank() const { return rank_; }

  // Collective. out[i*dim ..] = row of ids[i] (out has ids.size() * dim() values).
  FetchStats fetch(std::span<const std::int64_t> ids, float* out) const { return fetch_as(ids, out); }
  FetchStats fetch(std::span<const std::int64_t> ids, format::Half* out) const { return fetch_as(ids, out); }

  // Collective. Like fetch(), but only the ids in `remote_positions` (positions into ids, all of
  // them owned by other ranks) travel; the caller fills the other rows itself.
  FetchStats fetch_remote(std::span<const std::int64_t> ids, std::span<const std::int64_t> remote_positions,
                          float* out) const {
    return fetch_remote_as(ids, remote_positions, out, nullptr);
  }
  FetchStats fetch_remote(std::span<const std::int64_t> ids, std::span<const std::int64_t> remote_positions,
                          format::Half* out) const {
    return fetch_remote_as(ids, remote_positions, out, nullptr);
  }

  // Collective, a sparse table's only. The rows of ids at `remote_positions` (all owned by other
  // ranks) appended to `out` as sparse rows, in the order of remote_positions, never widened.
  FetchStats fetch_remote_sparse(std::span<const std::int64_t> ids, std::span<const std::int64_t> remote_positions,
                                 graph::SparseRows& out) const;

  // Collective. The rows of `ids` (all owned by other ranks), in order, as a new buffer of
  // ids.size() * dim() floats; `stats` (optional) receives the fetch statistics.
  std::vector<float> fetch_rows(std::span<const std::int64_t> ids, FetchStats* stats = nullptr) const;

 private:
  // Rows of this rank's own table and where they go in `out`.
  struct OwnRows {
    std::span<const std::int64_t> rows, positions;
  };
  // Out: float or format::Half.
  template <class Out>
  FetchStats fetch_as(std::span<const std::int64_t> ids, Out* out) const;
  template <class Out>
  FetchStats fetch_remote_as(std::span<const std::int64_t> ids, std::span<const std::int64_t> remote_positions,
                             Out* out, const OwnRows* own) const;
  // Collective on the first call (the first fetch): the windows every rank sweeps its table in, in
  // step (0: no rank's table reads in file order).
  std::int64_t sweep_windows() const;
  // `own` (may be null): this rank's own rows, gathered with the rows it serves.
  template <class Wire, class Out>
  void exchange_rows(const std::vector<std::vector<std::int64_t>>& request_ids,
                     const std::vector<std::vector<std::int64_t>>& positions, const OwnRows* own, Out* out,
                     FetchStats& stats) const;
  // The ids at `remote_positions` grouped by their owner: the requests, and their positions.
  void requests_by_owner(std::span<const std::int64_t> ids, std::span<const std::int64_t> remote_positions,
                         std::vector<std::vector<std::int64_t>>& request_ids,
                         std::vector<std::vector<std::int64_t>>& positions) const;
  // The rows each rank asks for sent as their entries (sparse_wire.hpp); the replies received.
  template <class Wire>
  std::vector<std::vector<std::byte>> exchange_sparse_replies(
      const std::vector<std::vector<std::int64_t>>& request_ids) const;
  // exchange_rows() for a sparse table: the rows travel as their entries, decoded densely.
  template <class Wire, class Out>
  void exchange_sparse_rows(const std::vector<std::vector<std::int64_t>>& request_ids,
                            const std::vector<std::vector<std::int64_t>>& positions, const OwnRows* own, Out* out,
                            FetchStats& stats) const;
  // The rows other ranks asked for (`wanted`, as wire rows into `encoded`) and `own` (as Out rows
  // into `out`) in one gather: one sweep of the file where the table reads in file order.
  template <class Wire, class Out>
  void gather_served_and_own(std::span<const std::int64_t> wanted, const OwnRows* own, Out* out,
                             std::vector<Wire>& encoded) const;

  const comm::Communicator* comm_;
  partition::PartitionBook book_;
  RowTable local_;
  WireDType wire_;
  int rank_;
  std::int64_t offset_;
  std::int64_t sweep_window_bytes_ = std::int64_t{256} << 20;
  mutable std::optional<std::int64_t> sweep_windows_;  // agreed on the first fetch
};

}  // namespace loom::feature
