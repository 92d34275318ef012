#include "loom/feature/feature_source.hpp"

#include <algorithm>
#include <array>
#include <numeric>
#include <type_traits>

#include <absl/container/flat_hash_map.h>

#include "loom/core/parallel.hpp"
#include "loom/core/prefetch_loop.hpp"
#include "loom/core/timer.hpp"

namespace loom::feature {

namespace {

constexpr std::int64_t kOwn = -1, kRemote = -2;  // row_slots' kinds of rows beside cache rows (>= 0)

std::vector<std::int64_t> positions_of(std::span<const std::int64_t> slot, std::int64_t kind) {
  std::vector<std::int64_t> positions;
  for (std::size_t i = 0; i < slot.size(); ++i)
    if (slot[i] == kind) positions.push_back(static_cast<std::int64_t>(i));
  return positions;
}

void count_served(std::span<const std::int64_t> slot, FetchStats& stats) {
  for (const std::int64_t s : slot) {
    stats.cached_rows += s >= 0;
    stats.local_rows += s == kOwn;
  }
}

// Splits a batch's rows between the device tier (`tier`, may be empty), the own rows the device
// reads in place (all other own rows, where `mapped`) and the host (`staged_ids`), each in batch
// order: blocks of rows in parallel, first their kinds (the tier's slots looked up 16 rows ahead),
// then, from each block's offsets, the lists.
void split_rows(std::span<const std::int64_t> ids, partition::IdRange mine, const HotTier* tier, bool mapped,
                TierRows& rows, std::vector<std::int64_t>& staged_ids) {
  constexpr std::int64_t kBlock = 4096, kAhead = 16;
  constexpr std::int64_t kMapped = -1, kStaged = -2;  // beside tier slots (>= 0)
  const bool tiered = tier != nullptr && !tier->empty();
  const auto n = static_cast<std::int64_t>(ids.size());
  std::vector<std::int64_t> slot(static_cast<std::size_t>(n));
  std::vector<std::array<std::int64_t, 3>> starts(static_cast<std::size_t>((n + kBlock - 1) / kBlock));
  core::parallel_for_blocks(n, kBlock, [&](std::int64_t begin, std::int64_t end, std::int64_t block) {
    // Counted in a local array the loop's stores cannot alias (through for_each_prefetching's
    // callback they could, and the count went through memory: 1.3x slower).
    std::array<std::int64_t, 3> count{};  // tier, mapped, staged
    for (std::int64_t i = begin; i < end; ++i) {
      if (tiered && i + kAhead < end && mine.contains(ids[i + kAhead]))
        tier->prefetch_slot(ids[i + kAhead] - mine.begin);
      const bool own = mine.contains(ids[i]);
      const std::int64_t tier_slot = tiered && own ? tier->slot(ids[i] - mine.begin) : -1;
      slot[i] = tier_slot >= 0 ? tier_slot : mapped && own ? kMapped : kStaged;
      ++count[slot[i] >= 0 ? 0 : slot[i] == kMapped ? 1 : 2];
    }
    starts[block] = count;
  });
  std::array<std::int64_t, 3> total{};
  for (auto& start : starts) {
    for (std::size_t k = 0; k < 3; ++k) std::swap(start[k], total[k]), total[k] += start[k];
  }
  rows.positions.resize(total[0]), rows.slots.resize(total[0]);
  rows.mapped_positions.resize(total[1]), rows.mapped_rows.resize(total[1]);
  rows.staged.resize(total[2]), staged_ids.resize(total[2]);
  core::parallel_for_blocks(n, kBlock, [&](std::int64_t begin, std::int64_t end, std::int64_t block) {
    std::array<std::int64_t, 3> at = starts[block];
    for (std::int64_t i = begin; i < end; ++i) {
      if (slot[i] >= 0) {
        rows.positions[at[0]] = i;
        rows.slots[at[0]++] = slot[i];
      } else if (slot[i] == kMapped) {
        rows.mapped_positions[at[1]] = i;
        rows.mapped_rows[at[1]++] = ids[i] - mine.begin;
      } else {
        rows.staged[at[2]] = i;
        staged_ids[at[2]++] = ids[i];
      }
    }
  });
}

}  // namespace

FetchStats FeatureSource::gather(std::span<const std::int64_t> ids, float* out, TierRows* tier_rows,
                                 std::span<const std::span<const std::int64_t>> upcoming) const {
  if (tier_rows != nullptr) tier_rows->clear();
  const bool tiered = hot_tier_ != nullptr && !hot_tier_->empty();
  if (tier_rows == nullptr || (!tiered && !own_rows_mapped_)) return gather_rows(ids, out, upcoming);
  core::Timer timer;
  std::vector<std::int64_t> staged_ids;
  split_rows(ids, fetcher_->book().range(fetcher_->rank()), hot_tier_, own_rows_mapped_, *tier_rows, staged_ids);
  if (!tier_rows->split()) tier_rows->staged.clear();
  FetchStats stats = gather_rows(staged_ids, out, upcoming);
  const auto hot = static_cast<std::int64_t>(tier_rows->positions.size());
  stats.local_rows += hot + static_cast<std::int64_t>(tier_rows->mapped_positions.size());
  stats.device_rows += hot;
  stats.seconds = timer.seconds();
  return stats;
}

FetchStats FeatureSource::gather(std::span<const std::int64_t> ids, format::Half* out) const {
  LOOM_CHECK(buffer_ == nullptr, "FeatureSource: float16 rows are not served through a prefetch buffer");
  return gather_rows(ids, out, {});
}

template <class Out>
FetchStats FeatureSource::gather_rows(std::span<const std::int64_t> ids, Out* out,
                                      std::span<const std::span<const std::int64_t>> upcoming) const {
  const bool cached = cache_ != nullptr && !cache_->empty();
  if (!cached && buffer_ == nullptr) return fetcher_->fetch(ids, out);
  core::Timer timer;
  const auto n = static_cast<std::int64_t>(ids.size());
  const partition::IdRange mine = fetcher_->book().range(fetcher_->rank());
  const std::vector<std::int64_t> slot = row_slots(ids);
  std::vector<std::int64_t> remote_positions = positions_of(slot, kRemote);
  const std::int64_t dim = fetcher_->dim();
  const auto prefetch = [&](std::int64_t i) {
    if (slot[i] >= 0)
      cache_->rows().prefetch(slot[i]);
    else if (slot[i] == kOwn)
      fetcher_->local().prefetch(ids[i] - mine.begin);
  };
  core::parallel_for_blocks(n, 256, [&](std::int64_t begin, std::int64_t end, std::int64_t) {
    core::for_each_prefetching(begin, end, RowTable::kRowsAhead, prefetch, [&](std::int64_t i) {
      if (slot[i] >= 0)
        cache_->rows().row(slot[i], out + i * dim);
      else if (slot[i] == kOwn)
        fetcher_->local().row(ids[i] - mine.begin, out + i * dim);
    });
  });
  FetchStats stats;
  if constexpr (std::is_same_v<Out, float>) {
    if (buffer_ != nullptr) {
      const auto before = buffer_->hits();
      buffer_->see_ahead(upcoming);
      remote_positions = buffer_->lookup(ids, remote_positions, out);
      stats = fetch_with_replacements(ids, remote_positions, out);
      buffer_->admit(ids, remote_positions, out);
      stats.prefetch_hits = buffer_->hits() - before;
      buffer_->end_step();
    }
  }
  if (buffer_ == nullptr) stats = fetcher_->fetch_remote(ids, remote_positions, out);
  count_served(slot, stats);
  stats.seconds = timer.seconds();
  return stats;
}

std::vector<std::int64_t> FeatureSource::row_slots(std::span<const std::int64_t> ids) const {
  const bool cached = cache_ != nullptr && !cache_->empty();
  const partition::IdRange mine = fetcher_->book().range(fetcher_->rank());
  std::vector<std::int64_t> slot(ids.size());
  core::parallel_for(
      static_cast<std::int64_t>(ids.size()),
      [&](std::int64_t i) {
        if (mine.contains(ids[i])) {
          slot[i] = kOwn;
        } else {
          const std::int64_t row = cached ? cache_->find(ids[i]) : -1;
          slot[i] = row >= 0 ? row : kRemote;
        }
      },
      4096);
  return slot;
}

FetchStats FeatureSource::gather_sparse(std::span<const std::int64_t> ids, graph::SparseRows& out,
                                        std::span<const std::span<const std::int64_t>> upcoming) const {
  LOOM_CHECK(gathers_sparse(), "FeatureSource: sparse rows are gathered from a sparse store");
  core::Timer timer;
  const auto n = static_cast<std::int64_t>(ids.size());
  const partition::IdRange mine = fetcher_->book().range(fetcher_->rank());
  std::vector<std::int64_t> slot = row_slots(ids);
  std::vector<std::int64_t> remote_positions = positions_of(slot, kRemote);
  std::vector<std::int64_t> hit_positions, hit_slots, extra;
  const std::int64_t hits_before = buffer_ == nullptr ? 0 : buffer_->hits();
  if (buffer_ != nullptr) {
    buffer_->see_ahead(upcoming);
    remote_positions = buffer_->lookup_slots(ids, remote_positions, hit_positions, hit_slots);
    extra = buffer_->replacements();
  }
  // One request: the batch's misses, then the replacement rows the batch does not fetch anyway.
  std::vector<std::int64_t> request;
  absl::flat_hash_map<std::int64_t, std::int64_t> row_of_id;
  for (const std::int64_t p : remote_positions) {
    row_of_id.emplace(ids[p], static_cast<std::int64_t>(request.size()));
    request.push_back(ids[p]);
  }
  const auto batch_rows = static_cast<std::int64_t>(request.size());
  for (const std::int64_t id : extra)
    if (row_of_id.emplace(id, static_cast<std::int64_t>(request.size())).second) request.push_back(id);
  std::vector<std::int64_t> all(request.size());
  std::iota(all.begin(), all.end(), 0);
  graph::SparseRows remote;
  FetchStats stats = fetcher_->fetch_remote_sparse(request, all, remote);
  stats.prefetch_rows = static_cast<std::int64_t>(request.size()) - batch_rows;
  count_served(slot, stats);
  if (buffer_ != nullptr)
    buffer_->install(extra, [&](std::int64_t i) { return entries_of(remote, row_of_id.at(extra[i])); });
  // Fetched rows' slots become their rows in `remote`, then buffered rows' their hits (all below
  // kRemote, so they stay apart from own and cached rows).
  const auto fetched = static_cast<std::int64_t>(request.size());
  for (std::int64_t k = 0; k < batch_rows; ++k) slot[remote_positions[k]] = kRemote - 1 - k;
  for (std::size_t j = 0; j < hit_positions.size(); ++j)
    slot[hit_positions[j]] = kRemote - 1 - fetched - static_cast<std::int64_t>(j);
  const auto entries = [&](std::int64_t i) {
    if (slot[i] == kOwn) return fetcher_->local().sparse_entries(ids[i] - mine.begin);
    if (slot[i] >= 0) return cache_->rows().sparse_entries(slot[i]);
    const std::int64_t k = kRemote - 1 - slot[i];
    return k < fetched ? entries_of(remote, k) : buffer_->slot_entries(hit_slots[k - fetched]);
  };
  assemble_sparse_rows(n, entries, out);
  if (buffer_ != nullptr) {  // after the batch is assembled: admissions may take the slots it read
    buffer_->admit(ids, remote_positions, [&](std::int64_t p) { return entries_of(remote, kRemote - 1 - slot[p]); });
    stats.prefetch_hits = buffer_->hits() - hits_before;
    buffer_->end_step();
  }
  stats.seconds = timer.seconds();
  return stats;
}

FetchStats FeatureSource::fetch_with_replacements(std::span<const std::int64_t> ids,
                                                  std::span<const std::int64_t> positions, float* out) const {
  const std::vector<std::int64_t> extra = buffer_->replacements();
  if (extra.empty()) return fetcher_->fetch_remote(ids, positions, out);
  // One request: the batch's missing ids, then replacement ids the batch does not already fetch.
  std::vector<std::int64_t> request;
  request.reserve(positions.size() + extra.size());
  absl::flat_hash_map<std::int64_t, std::int64_t> index;
  for (const std::int64_t p : positions)
    if (index.emplace(ids[p], request.size()).second) request.push_back(ids[p]);
  const auto batch_rows = static_cast<std::int64_t>(request.size());
  for (const std::int64_t id : extra)
    if (index.emplace(id, request.size()).second) request.push_back(id);
  const std::int64_t dim = fetcher_->dim();
  FetchStats stats;
  const std::vector<float> rows = fetcher_->fetch_rows(request, &stats);
  for (const std::int64_t p : positions) std::copy_n(rows.data() + index.at(ids[p]) * dim, dim, out + p * dim);
  std::vector<float> replacement_rows(extra.size() * static_cast<std::size_t>(dim));
  for (std::size_t i = 0; i < extra.size(); ++i)
    std::copy_n(rows.data() + index.at(extra[i]) * dim, dim, replacement_rows.data() + i * dim);
  buffer_->install(extra, replacement_rows.data());
  stats.prefetch_rows = static_cast<std::int64_t>(request.size()) - batch_rows;
  return stats;
}

}  // namespace loom::feature
