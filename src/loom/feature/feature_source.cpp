#include "loom/feature/feature_source.hpp"

#include <algorithm>
#include <type_traits>

#include <absl/container/flat_hash_map.h>

#include "loom/core/parallel.hpp"
#include "loom/core/timer.hpp"

namespace loom::feature {

namespace {
constexpr std::int64_t kOwn = -1, kRemote = -2;
}

FetchStats FeatureSource::gather(std::span<const std::int64_t> ids, float* out, TierRows* tier_rows,
                                 std::span<const std::span<const std::int64_t>> upcoming) const {
  if (tier_rows != nullptr) tier_rows->clear();
  const bool tiered = hot_tier_ != nullptr && !hot_tier_->empty();
  if (tier_rows == nullptr || (!tiered && !own_rows_mapped_)) return gather_rows(ids, out, upcoming);
  core::Timer timer;
  const partition::IdRange mine = fetcher_->book().range(fetcher_->rank());
  const auto n = static_cast<std::int64_t>(ids.size());
  // Per row: its tier slot (>= 0), kMapped (an own row the device reads in place) or kStaged.
  constexpr std::int64_t kMapped = -1, kStaged = -2;
  std::vector<std::int64_t> slot(static_cast<std::size_t>(n));
  core::parallel_for_blocks(n, 4096, [&](std::int64_t begin, std::int64_t end, std::int64_t) {
    constexpr std::int64_t kAhead = 16;  // lookups in flight
    for (std::int64_t i = begin; i < end; ++i) {
      if (tiered && i + kAhead < end && mine.contains(ids[i + kAhead]))
        hot_tier_->prefetch_slot(ids[i + kAhead] - mine.begin);
      const std::int64_t tier_slot = tiered && mine.contains(ids[i]) ? hot_tier_->slot(ids[i] - mine.begin) : -1;
      slot[i] = tier_slot >= 0 ? tier_slot : own_rows_mapped_ && mine.contains(ids[i]) ? kMapped : kStaged;
    }
  });
  std::vector<std::int64_t> staged_ids;
  for (std::int64_t i = 0; i < n; ++i) {
    if (slot[i] >= 0) {
      tier_rows->positions.push_back(i);
      tier_rows->slots.push_back(slot[i]);
    } else if (slot[i] == kMapped) {
      tier_rows->mapped_positions.push_back(i);
      tier_rows->mapped_rows.push_back(ids[i] - mine.begin);
    } else {
      tier_rows->staged.push_back(i);
      staged_ids.push_back(ids[i]);
    }
  }
  if (!tier_rows->split()) tier_rows->staged.clear();
  FetchStats stats = gather_rows(staged_ids, out, upcoming);
  const auto hot = static_cast<std::int64_t>(tier_rows->positions.size());
  stats.local_rows += hot + static_cast<std::int64_t>(tier_rows->mapped_positions.size());
  stats.device_rows += hot;
  stats.seconds = timer.seconds();
  return stats;
}

FetchStats FeatureSource::gather(std::span<const std::int64_t> ids, core::Half* out) const {
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
  std::vector<std::int64_t> slot(n);  // cache row, kOwn or kRemote
  core::parallel_for(
      n,
      [&](std::int64_t i) {
        if (mine.contains(ids[i])) {
          slot[i] = kOwn;
        } else {
          const std::int64_t row = cached ? cache_->find(ids[i]) : -1;
          slot[i] = row >= 0 ? row : kRemote;
        }
      },
      4096);
  std::vector<std::int64_t> remote_positions;
  for (std::int64_t i = 0; i < n; ++i)
    if (slot[i] == kRemote) remote_positions.push_back(i);
  const std::int64_t dim = fetcher_->dim();
  const auto prefetch = [&](std::int64_t i) {
    if (slot[i] >= 0)
      cache_->rows().prefetch(slot[i]);
    else if (slot[i] == kOwn)
      fetcher_->local().prefetch(ids[i] - mine.begin);
  };
  core::parallel_for_blocks(n, 256, [&](std::int64_t begin, std::int64_t end, std::int64_t) {
    const std::int64_t ahead = RowTable::kRowsAhead;
    for (std::int64_t i = begin; i < std::min(end, begin + ahead); ++i) prefetch(i);
    for (std::int64_t i = begin; i < end; ++i) {
      if (i + ahead < end) prefetch(i + ahead);
      if (slot[i] >= 0)
        cache_->rows().row(slot[i], out + i * dim);
      else if (slot[i] == kOwn)
        fetcher_->local().row(ids[i] - mine.begin, out + i * dim);
    }
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
  for (std::int64_t i = 0; i < n; ++i) {
    stats.cached_rows += slot[i] >= 0;
    stats.local_rows += slot[i] == kOwn;
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
