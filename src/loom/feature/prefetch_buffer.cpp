#include "loom/feature/prefetch_buffer.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include "loom/core/error.hpp"

namespace loom::feature {

void check(const PrefetchOptions& o) {
  LOOM_CHECK_ARG(o.fraction > 0 && o.fraction <= 1, "--prefetch", "fraction of the halo must be in (0, 1], got {}",
                 o.fraction);
  LOOM_CHECK_ARG(o.decay > 0 && o.decay < 1, "--prefetch-decay", "must be in (0, 1), got {}", o.decay);
  LOOM_CHECK_ARG(o.period > 0, "--prefetch-period", "must be positive, got {}", o.period);
  LOOM_CHECK_ARG(o.lookahead >= 0, "--prefetch-lookahead", "must be >= 0, got {}", o.lookahead);
}

PrefetchBuffer::PrefetchBuffer(partition::IdRange own, std::int64_t num_nodes, std::int64_t capacity, std::int64_t dim,
                               const PrefetchOptions& options, bool sparse_rows)
    : own_(own), dim_(dim), options_(options), sparse_(sparse_rows) {
  check(options_);
  LOOM_CHECK(own.begin >= 0 && own.end <= num_nodes && own.begin <= own.end,
             "prefetch buffer: own range [{}, {}) "
             "outside {} nodes",
             own.begin, own.end, num_nodes);
  const std::int64_t remote = num_nodes - own.size();
  capacity = std::clamp<std::int64_t>(capacity, 0, remote);
  vertex_slot_.assign(static_cast<std::size_t>(remote), -1);
  misses_.assign(static_cast<std::size_t>(remote), 0);
  if (options_.lookahead > 0) {
    LOOM_CHECK(capacity < (std::int64_t{1} << 30), "prefetch buffer: {} rows are too many for --prefetch-lookahead",
               capacity);
    uses_.assign(static_cast<std::size_t>(remote), 0);
    sight_.assign(static_cast<std::size_t>(remote), -1);
  }
  slot_vertex_.assign(static_cast<std::size_t>(capacity), -1);
  last_hit_.assign(static_cast<std::size_t>(capacity), 0);
  if (sparse_) {
    slot_columns_.resize(static_cast<std::size_t>(capacity));
    slot_values_.resize(static_cast<std::size_t>(capacity));
  } else {
    rows_.assign(static_cast<std::size_t>(capacity * dim_), 0.0f);
  }
}

std::int64_t PrefetchBuffer::row_bytes() const {
  if (!sparse_) return static_cast<std::int64_t>(rows_.size() * sizeof(float));
  std::int64_t entries = 0;
  for (const auto& columns : slot_columns_) entries += static_cast<std::int64_t>(columns.size());
  return entries * 8;
}

std::int64_t PrefetchBuffer::capacity_for(std::int64_t halo_size, const PrefetchOptions& options) {
  return static_cast<std::int64_t>(std::floor(options.fraction * static_cast<double>(halo_size)));
}

FetchStats PrefetchBuffer::fill(const RemoteFetcher& fetcher, std::span<const double> scores) {
  std::vector<std::int64_t> chosen;
  if (!scores.empty()) {
    std::vector<std::int64_t> order;
    for (std::int64_t r = 0; r < static_cast<std::int64_t>(vertex_slot_.size()); ++r)
      if (scores[remote_id(r)] > 0) order.push_back(r);
    const auto keep = std::min<std::int64_t>(capacity(), order.size());
    const auto hotter = [&](std::int64_t a, std::int64_t b) {
      const double sa = scores[remote_id(a)], sb = scores[remote_id(b)];
      return sa > sb || (sa == sb && a < b);
    };
    std::partial_sort(order.begin(), order.begin() + keep, order.end(), hotter);
    for (std::int64_t i = 0; i < keep; ++i) chosen.push_back(remote_id(order[i]));
  }
  pending_slots_.resize(chosen.size());
  std::iota(pending_slots_.begin(), pending_slots_.end(), 0);
  FetchStats stats;
  if (sparse_) {
    std::vector<std::int64_t> positions(chosen.size());
    std::iota(positions.begin(), positions.end(), 0);
    graph::SparseRows rows;
    stats = fetcher.fetch_remote_sparse(chosen, positions, rows);  // collective, even when empty
    install(chosen, [&](std::int64_t i) { return entries_of(rows, i); });
  } else {
    const std::vector<float> rows = fetcher.fetch_rows(chosen, &stats);  // collective, even when empty
    install(chosen, rows.data());
  }
  rows_replaced_ = 0;
  return stats;
}

std::vector<std::int64_t> PrefetchBuffer::lookup(std::span<const std::int64_t> ids,
                                                 std::span<const std::int64_t> positions, float* out) {
  LOOM_CHECK(!sparse_, "prefetch buffer: sparse rows are served by slot (lookup_slots)");
  std::vector<std::int64_t> hit_positions, hit_slots;
  std::vector<std::int64_t> missing = lookup_slots(ids, positions, hit_positions, hit_slots);
  for (std::size_t k = 0; k < hit_positions.size(); ++k)
    std::memcpy(out + hit_positions[k] * dim_, rows_.data() + hit_slots[k] * dim_, sizeof(float) * dim_);
  return missing;
}

RowTable::SparseEntries PrefetchBuffer::slot_entries(std::int64_t slot) const {
  return {.columns = slot_columns_[slot], .values = slot_values_[slot].data()};
}

std::vector<std::int64_t> PrefetchBuffer::lookup_slots(std::span<const std::int64_t> ids,
                                                       std::span<const std::int64_t> positions,
                                                       std::vector<std::int64_t>& hit_positions,
                                                       std::vector<std::int64_t>& hit_slots) {
  std::vector<std::int64_t> missing;
  for (const std::int64_t pos : positions) {
    const std::int64_t r = remote_index(ids[pos]);
    const std::int32_t slot = vertex_slot_[r];
    if (!uses_.empty()) ++uses_[r];
    if (slot >= 0) {
      hit_positions.push_back(pos);
      hit_slots.push_back(slot);
      last_hit_[slot] = clock_;
      ++hits_;
    } else {
      ++misses_[r];
      ++misses_total_;
      missing.push_back(pos);
    }
  }
  return missing;
}

std::int64_t PrefetchBuffer::candidates() const {
  std::int64_t n = 0;
  for (std::int64_t s = 0; s < capacity(); ++s) n += slot_vertex_[s] >= 0 && clock_ - last_hit_[s] > options_.period;
  return n;
}

double PrefetchBuffer::mean_score() const {
  if (occupied_ == 0) return 0;
  double sum = 0;
  for (std::int64_t s = 0; s < capacity(); ++s)
    if (slot_vertex_[s] >= 0) sum += std::pow(1.0 - options_.decay, static_cast<double>(clock_ - last_hit_[s]));
  return sum / static_cast<double>(occupied_);
}

std::vector<std::int64_t> PrefetchBuffer::replacements() {
  pending_slots_.clear();
  if (!eviction_requested_) return {};
  eviction_requested_ = false;
  ++evictions_;
  // Free slots: empty ones, then candidates idle longest first.
  std::vector<std::int64_t> free_slots, idle;
  for (std::int64_t s = 0; s < capacity(); ++s) {
    if (slot_vertex_[s] < 0)
      free_slots.push_back(s);
    else if (clock_ - last_hit_[s] > options_.period)
      idle.push_back(s);
  }
  std::sort(idle.begin(), idle.end(), [&](std::int64_t a, std::int64_t b) { return last_hit_[a] < last_hit_[b]; });
  // Replacements: unbuffered remote vertices with misses, most missed first.
  std::vector<std::int64_t> wanted;
  for (std::int64_t r = 0; r < static_cast<std::int64_t>(misses_.size()); ++r)
    if (vertex_slot_[r] < 0 && misses_[r] > 0) wanted.push_back(r);
  const auto take = std::min(wanted.size(), free_slots.size() + idle.size());
  std::partial_sort(wanted.begin(), wanted.begin() + take, wanted.end(), [&](std::int64_t a, std::int64_t b) {
    return misses_[a] > misses_[b] || (misses_[a] == misses_[b] && a < b);
  });
  wanted.resize(take);
  std::vector<std::int64_t> ids;
  for (std::size_t i = 0; i < take; ++i) {
    std::int64_t slot;
    if (i < free_slots.size()) {
      slot = free_slots[i];
    } else {
      slot = idle[i - free_slots.size()];
      vertex_slot_[slot_vertex_[slot]] = -1;  // evict
      slot_vertex_[slot] = -1;
      --occupied_;
    }
    pending_slots_.push_back(slot);
    ids.push_back(remote_id(wanted[i]));
  }
  return ids;
}

void PrefetchBuffer::install(std::span<const std::int64_t> ids, const float* rows) {
  LOOM_CHECK(ids.size() == pending_slots_.size(), "prefetch buffer: {} rows for {} reserved slots", ids.size(),
             pending_slots_.size());
  for (std::size_t i = 0; i < ids.size(); ++i) {
    LOOM_CHECK(!own_.contains(ids[i]), "prefetch buffer: id {} is this rank's own", ids[i]);
    place(pending_slots_[i], remote_index(ids[i]), rows + i * dim_);
    ++occupied_;
  }
  rows_replaced_ += static_cast<std::int64_t>(ids.size());
  pending_slots_.clear();
}

void PrefetchBuffer::install(std::span<const std::int64_t> ids, const EntriesOf& entries_of) {
  LOOM_CHECK(ids.size() == pending_slots_.size(), "prefetch buffer: {} rows for {} reserved slots", ids.size(),
             pending_slots_.size());
  for (std::size_t i = 0; i < ids.size(); ++i) {
    LOOM_CHECK(!own_.contains(ids[i]), "prefetch buffer: id {} is this rank's own", ids[i]);
    place(pending_slots_[i], remote_index(ids[i]), entries_of(static_cast<std::int64_t>(i)));
    ++occupied_;
  }
  rows_replaced_ += static_cast<std::int64_t>(ids.size());
  pending_slots_.clear();
}

void PrefetchBuffer::place(std::int64_t slot, std::int64_t r, const float* row) {
  LOOM_CHECK(!sparse_, "prefetch buffer: a dense row for a buffer of sparse rows");
  std::memcpy(rows_.data() + slot * dim_, row, sizeof(float) * dim_);
  assign(slot, r);
}

void PrefetchBuffer::place(std::int64_t slot, std::int64_t r, const RowTable::SparseEntries& row) {
  LOOM_CHECK(sparse_, "prefetch buffer: sparse rows for a buffer of dense rows");
  slot_columns_[slot].assign(row.columns.begin(), row.columns.end());
  slot_values_[slot].resize(row.columns.size());
  row.values_as_floats(slot_values_[slot]);
  assign(slot, r);
}

void PrefetchBuffer::assign(std::int64_t slot, std::int64_t r) {
  slot_vertex_[slot] = r;
  vertex_slot_[r] = static_cast<std::int32_t>(slot);
  last_hit_[slot] = clock_;
  misses_[r] = 0;
}

void PrefetchBuffer::see_ahead(std::span<const std::span<const std::int64_t>> ids) {
  if (sight_.empty()) return;
  for (std::size_t j = ids.size(); j-- > 0;)  // farthest first, so the soonest use wins
    for (const std::int64_t id : ids[j])
      if (!own_.contains(id)) sight_[remote_index(id)] = clock_ + static_cast<std::int64_t>(j) + 1;
}

void PrefetchBuffer::admit(std::span<const std::int64_t> ids, std::span<const std::int64_t> fetched, const float* out) {
  for (const auto& [pos, slot] : admissions(ids, fetched)) place(slot, remote_index(ids[pos]), out + pos * dim_);
}

void PrefetchBuffer::admit(std::span<const std::int64_t> ids, std::span<const std::int64_t> fetched,
                           const EntriesOf& entries_of) {
  for (const auto& [pos, slot] : admissions(ids, fetched)) place(slot, remote_index(ids[pos]), entries_of(pos));
}

std::vector<std::pair<std::int64_t, std::int64_t>> PrefetchBuffer::admissions(std::span<const std::int64_t> ids,
                                                                              std::span<const std::int64_t> fetched) {
  std::vector<std::pair<std::int64_t, std::int64_t>> placed;
  if (sight_.empty() || capacity() == 0) return placed;
  const auto in_sight = [&](std::int64_t r) { return sight_[r] > clock_; };
  // Fetched rows in sight, soonest use first.
  std::vector<std::int64_t> wanted;
  for (const std::int64_t pos : fetched) {
    const std::int64_t r = remote_index(ids[pos]);
    if (in_sight(r) && vertex_slot_[r] < 0) wanted.push_back(pos);
  }
  if (wanted.empty()) return placed;
  std::sort(wanted.begin(), wanted.end(), [&](std::int64_t a, std::int64_t b) {
    return sight_[remote_index(ids[a])] < sight_[remote_index(ids[b])];
  });
  // Slots in the order they give way: empty ones, rows out of sight (least used first), then rows
  // in sight used latest first; each slot keyed once as (class, value) above its slot number.
  constexpr int kSlotBits = 30, kValueBits = 32;  // values: uses (int32) or a distance below lookahead (int)
  std::vector<std::uint64_t> order(static_cast<std::size_t>(capacity()));
  for (std::int64_t s = 0; s < capacity(); ++s) {
    const std::int64_t r = slot_vertex_[s];
    std::uint64_t key = 0;  // empty
    if (r >= 0 && !in_sight(r))
      key = (std::uint64_t{1} << kValueBits) | static_cast<std::uint64_t>(uses_[r]);
    else if (r >= 0)  // in sight: the later the use, the sooner it gives way
      key = (std::uint64_t{2} << kValueBits) | static_cast<std::uint64_t>(options_.lookahead - (sight_[r] - clock_));
    order[static_cast<std::size_t>(s)] = key << kSlotBits | static_cast<std::uint64_t>(s);
  }
  const auto needed = std::min(order.size(), wanted.size());
  std::nth_element(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(needed) - 1, order.end());
  std::sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(needed));
  std::size_t next_slot = 0;
  for (const std::int64_t pos : wanted) {
    if (next_slot == needed) break;
    const std::int64_t r = remote_index(ids[pos]);
    const auto slot = static_cast<std::int64_t>(order[next_slot] & ((std::uint64_t{1} << kSlotBits) - 1));
    const std::int64_t held = slot_vertex_[slot];
    if (held >= 0 && in_sight(held) && sight_[held] <= sight_[r]) break;  // every slot left is used sooner
    ++next_slot;
    if (held >= 0) {
      vertex_slot_[held] = -1;
    } else {
      ++occupied_;
    }
    vertex_slot_[r] = static_cast<std::int32_t>(slot);  // taken: placed by the caller
    placed.emplace_back(pos, slot);
    ++rows_admitted_;
  }
  return placed;
}

}  // namespace loom::feature
