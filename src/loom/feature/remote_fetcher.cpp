#include "loom/feature/remote_fetcher.hpp"

#include <numeric>
#include <type_traits>

#include "loom/core/parallel.hpp"
#include "loom/core/timer.hpp"
#include "loom/feature/sparse_wire.hpp"

namespace loom::feature {

FetchStats& FetchStats::operator+=(const FetchStats& o) {
  local_rows += o.local_rows;
  device_rows += o.device_rows;
  cached_rows += o.cached_rows;
  prefetch_hits += o.prefetch_hits;
  prefetch_rows += o.prefetch_rows;
  remote_rows += o.remote_rows;
  bytes += o.bytes;
  seconds += o.seconds;
  return *this;
}

RemoteFetcher::RemoteFetcher(const comm::Communicator& comm, const partition::PartitionBook& book, RowTable local,
                             WireDType wire)
    : comm_(&comm),
      book_(book),
      local_(std::move(local)),
      wire_(wire),
      rank_(comm.rank()),
      offset_(book.range(comm.rank()).begin) {
  LOOM_CHECK(book.num_parts() == comm.size(), "feature fetch: {} partitions for {} ranks", book.num_parts(),
             comm.size());
  LOOM_CHECK(local_.rows() == book.range(rank_).size(), "feature fetch: rank {} holds {} rows but owns {} ids", rank_,
             local_.rows(), book.range(rank_).size());
}

template <class Out>
FetchStats RemoteFetcher::fetch_as(std::span<const std::int64_t> ids, Out* out) const {
  core::Timer timer;
  const partition::IdRange mine = book_.range(rank_);
  std::vector<std::int64_t> local_rows, local_positions, remote_positions;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (mine.contains(ids[i])) {
      local_rows.push_back(ids[i] - offset_);
      local_positions.push_back(static_cast<std::int64_t>(i));
    } else {
      remote_positions.push_back(static_cast<std::int64_t>(i));
    }
  }
  // Own rows are read in the gather of the served rows (one sweep of the file) where the table
  // reads in file order, and for float16 output; otherwise here, beforehand.
  const bool own_with_served = local_.reads_in_file_order() || !std::is_same_v<Out, float>;
  if constexpr (std::is_same_v<Out, float>) {
    if (!own_with_served) local_.gather_at(local_rows, local_positions, out);
  }
  const OwnRows own{local_rows, local_positions};
  FetchStats stats = fetch_remote_as(ids, remote_positions, out, own_with_served ? &own : nullptr);
  stats.local_rows = static_cast<std::int64_t>(local_rows.size());
  stats.seconds = timer.seconds();
  return stats;
}

void RemoteFetcher::requests_by_owner(std::span<const std::int64_t> ids, std::span<const std::int64_t> remote_positions,
                                      std::vector<std::vector<std::int64_t>>& request_ids,
                                      std::vector<std::vector<std::int64_t>>& positions) const {
  request_ids.assign(book_.num_parts(), {});
  positions.assign(book_.num_parts(), {});
  for (const std::int64_t pos : remote_positions) {
    const int owner = book_.owner(ids[pos]);
    LOOM_CHECK(owner != rank_, "fetch_remote: id {} is owned by this rank", ids[pos]);
    request_ids[owner].push_back(ids[pos]);
    positions[owner].push_back(pos);
  }
}

template <class Out>
FetchStats RemoteFetcher::fetch_remote_as(std::span<const std::int64_t> ids,
                                          std::span<const std::int64_t> remote_positions, Out* out,
                                          const OwnRows* own) const {
  core::Timer timer;
  std::vector<std::vector<std::int64_t>> request_ids, positions;
  requests_by_owner(ids, remote_positions, request_ids, positions);
  FetchStats stats;
  stats.remote_rows = static_cast<std::int64_t>(remote_positions.size());
  if (wire_ == WireDType::kFloat16)
    exchange_rows<format::Half, Out>(request_ids, positions, own, out, stats);
  else
    exchange_rows<float, Out>(request_ids, positions, own, out, stats);
  stats.seconds = timer.seconds();
  return stats;
}

FetchStats RemoteFetcher::fetch_remote_sparse(std::span<const std::int64_t> ids,
                                              std::span<const std::int64_t> remote_positions,
                                              graph::SparseRows& out) const {
  LOOM_CHECK(local_.is_sparse(), "fetch_remote_sparse: this rank's rows are dense");
  core::Timer timer;
  std::vector<std::vector<std::int64_t>> request_ids, positions;
  requests_by_owner(ids, remote_positions, request_ids, positions);
  const auto replies = wire_ == WireDType::kFloat16 ? exchange_sparse_replies<format::Half>(request_ids)
                                                    : exchange_sparse_replies<float>(request_ids);
  FetchStats stats;
  stats.remote_rows = static_cast<std::int64_t>(remote_positions.size());
  const int parts = book_.num_parts();
  std::vector<graph::SparseRows> part_rows(parts);
  for (int p = 0; p < parts; ++p) {
    if (p == rank_ || positions[p].empty()) continue;
    const auto count = static_cast<std::int64_t>(positions[p].size());
    if (wire_ == WireDType::kFloat16)
      decode_sparse_rows_into<format::Half>(replies[p], dim(), count, part_rows[p]);
    else
      decode_sparse_rows_into<float>(replies[p], dim(), count, part_rows[p]);
    stats.bytes += static_cast<std::int64_t>(replies[p].size());
  }
  // Back into the order of remote_positions: each owner answered its requests in order.
  std::vector<std::int64_t> next(parts, 0);
  for (const std::int64_t pos : remote_positions) {
    const int p = book_.owner(ids[pos]);
    const graph::SparseRows& from = part_rows[p];
    const std::int64_t k = next[p]++, begin = from.indptr[k], end = from.indptr[k + 1];
    out.indices.insert(out.indices.end(), from.indices.begin() + begin, from.indices.begin() + end);
    out.values.insert(out.values.end(), from.values.begin() + begin, from.values.begin() + end);
    out.indptr.push_back(out.nnz());
  }
  stats.seconds = timer.seconds();
  return stats;
}

std::vector<float> RemoteFetcher::fetch_rows(std::span<const std::int64_t> ids, FetchStats* stats) const {
  std::vector<std::int64_t> positions(ids.size());
  std::iota(positions.begin(), positions.end(), 0);
  std::vector<float> rows(ids.size() * static_cast<std::size_t>(local_.dim()));
  const FetchStats fetched = fetch_remote(ids, positions, rows.data());
  if (stats != nullptr) *stats = fetched;
  return rows;
}

std::int64_t RemoteFetcher::sweep_windows() const {
  // Where any rank's table is larger than the page cache can hold, every rank sweeps its rows in
  // step with the others, window by window: ranks mapping one file (a partitioned store's mapped
  // features) then read each page of it from disk once, not once per rank that drifted apart.
  // A table's read order is fixed when it is opened, so the ranks agree on the count once.
  if (!sweep_windows_) {
    const std::int64_t local_windows =
        local_.reads_in_file_order() ? (local_.array_bytes() + sweep_window_bytes_ - 1) / sweep_window_bytes_ : 0;
    sweep_windows_ = comm_->allreduce_max(local_windows, comm::Channel::control);
  }
  return *sweep_windows_;
}

template <class Wire, class Out>
void RemoteFetcher::gather_served_and_own(std::span<const std::int64_t> wanted, const OwnRows* own, Out* out,
                                          std::vector<Wire>& encoded) const {
  const std::int64_t windows = sweep_windows();
  if (own == nullptr && windows == 0) {
    encode_rows<Wire>(local_, wanted, encoded);
    return;
  }
  const auto served = static_cast<std::int64_t>(wanted.size());
  const std::int64_t dim = local_.dim();
  encoded.resize(wanted.size() * static_cast<std::size_t>(dim));
  const auto n = served + static_cast<std::int64_t>(own == nullptr ? 0 : own->rows.size());
  const auto row_of = [&](std::int64_t i) { return i < served ? wanted[i] : own->rows[i - served]; };
  const auto read = [&](std::int64_t i) {
    if (i >= served) {
      local_.row(own->rows[i - served], out + own->positions[i - served] * dim);
    } else {
      local_.row(wanted[i], encoded.data() + i * dim);
    }
  };
  if (windows > 0)
    local_.for_each_row_by_window(n, windows, row_of, read, [&](std::int64_t) { comm_->barrier_sleeping(); });
  else
    local_.for_each_row(n, row_of, read);
}

template <class Wire>
std::vector<std::vector<std::byte>> RemoteFetcher::exchange_sparse_replies(
    const std::vector<std::vector<std::int64_t>>& request_ids) const {
  const int parts = book_.num_parts();
  const auto requested = comm_->alltoallv(request_ids, comm::Channel::features);
  std::vector<std::vector<std::byte>> replies(parts);
  std::vector<std::int64_t> wanted;
  for (int p = 0; p < parts; ++p) {
    if (p == rank_) continue;
    wanted.clear();
    for (const std::int64_t id : requested[p]) {
      LOOM_CHECK(id - offset_ >= 0 && id - offset_ < local_.rows(), "rank {} asked rank {} for id {} it does not own",
                 p, rank_, id);
      wanted.push_back(id - offset_);
    }
    encode_sparse_rows<Wire>(local_, wanted, replies[p]);
  }
  return comm_->alltoallv(replies, comm::Channel::features);
}

template <class Wire, class Out>
void RemoteFetcher::exchange_sparse_rows(const std::vector<std::vector<std::int64_t>>& request_ids,
                                         const std::vector<std::vector<std::int64_t>>& positions, const OwnRows* own,
                                         Out* out, FetchStats& stats) const {
  const std::int64_t dim = local_.dim();
  if (own != nullptr)
    core::parallel_for(
        static_cast<std::int64_t>(own->rows.size()),
        [&](std::int64_t i) { local_.row(own->rows[i], out + own->positions[i] * dim); }, 256);
  const auto rows = exchange_sparse_replies<Wire>(request_ids);
  for (int p = 0; p < book_.num_parts(); ++p) {
    if (p == rank_ || positions[p].empty()) continue;
    decode_sparse_rows<Wire, Out>(rows[p], dim, positions[p], out);
    stats.bytes += static_cast<std::int64_t>(rows[p].size());
  }
}

template <class Wire, class Out>
void RemoteFetcher::exchange_rows(const std::vector<std::vector<std::int64_t>>& request_ids,
                                  const std::vector<std::vector<std::int64_t>>& positions, const OwnRows* own, Out* out,
                                  FetchStats& stats) const {
  if (local_.is_sparse()) {  // every part of a store has its layout
    exchange_sparse_rows<Wire, Out>(request_ids, positions, own, out, stats);
    return;
  }
  const int parts = book_.num_parts();
  // Round 1: ids to their owners. Round 2: owners answer with the rows, in request order.
  const auto requested = comm_->alltoallv(request_ids, comm::Channel::features);
  // Every rank's requested rows (and, with `own`, this rank's own) are read in one gather (one
  // sweep of the file, where the table reads in file order), then split into the replies.
  std::vector<std::int64_t> wanted;
  std::vector<std::size_t> first(static_cast<std::size_t>(parts) + 1, 0);
  for (int p = 0; p < parts; ++p) {
    if (p != rank_) {
      for (const std::int64_t id : requested[p]) {
        LOOM_CHECK(id - offset_ >= 0 && id - offset_ < local_.rows(), "rank {} asked rank {} for id {} it does not own",
                   p, rank_, id);
        wanted.push_back(id - offset_);
      }
    }
    first[p + 1] = wanted.size();
  }
  std::vector<Wire> encoded;
  gather_served_and_own<Wire>(wanted, own, out, encoded);
  const auto dim = static_cast<std::size_t>(local_.dim());
  std::vector<std::vector<Wire>> replies(parts);
  for (int p = 0; p < parts; ++p)
    replies[p].assign(encoded.begin() + static_cast<std::ptrdiff_t>(first[p] * dim),
                      encoded.begin() + static_cast<std::ptrdiff_t>(first[p + 1] * dim));
  const auto rows = comm_->alltoallv(replies, comm::Channel::features);
  for (int p = 0; p < parts; ++p) {
    if (p == rank_ || positions[p].empty()) continue;
    LOOM_CHECK(
        static_cast<std::int64_t>(rows[p].size()) == static_cast<std::int64_t>(positions[p].size()) * local_.dim(),
        "rank {} answered {} values for {} rows", p, rows[p].size(), positions[p].size());
    decode_rows<Wire, Out>(rows[p], local_.dim(), positions[p], out);
    stats.bytes += static_cast<std::int64_t>(rows[p].size() * sizeof(Wire));
  }
}

template FetchStats RemoteFetcher::fetch_as(std::span<const std::int64_t>, float*) const;
template FetchStats RemoteFetcher::fetch_as(std::span<const std::int64_t>, format::Half*) const;
template FetchStats RemoteFetcher::fetch_remote_as(std::span<const std::int64_t>, std::span<const std::int64_t>, float*,
                                                   const OwnRows*) const;
template FetchStats RemoteFetcher::fetch_remote_as(std::span<const std::int64_t>, std::span<const std::int64_t>,
                                                   format::Half*, const OwnRows*) const;

}  // namespace loom::feature
