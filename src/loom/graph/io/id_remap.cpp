#include "loom/graph/io/id_remap.hpp"

#include <algorithm>
#include <numeric>

#include "loom/core/parallel.hpp"

namespace loom::graph::io {

namespace {

// Sorts provisional ids 0..n-1 by `less` and returns rank[provisional] = position.
template <class Less>
std::vector<std::int64_t> sorted_ranks(std::int64_t n, Less less) {
  std::vector<std::int64_t> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), std::int64_t{0});
  std::sort(order.begin(), order.end(), less);
  std::vector<std::int64_t> rank(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) rank[order[i]] = i;
  return rank;
}

}  // namespace

void apply_order(const DenseOrder& order, std::span<std::int64_t> ids) {
  const std::int64_t* rank = order.rank.data();
  std::int64_t* out = ids.data();
  core::parallel_for(
      static_cast<std::int64_t>(ids.size()), [&](std::int64_t i) { out[i] = rank[out[i]]; }, 1 << 16);
}

IntIdRemap::IntIdRemap() : slots_(1 << 12), mask_((1 << 12) - 1) {}

void IntIdRemap::grow() {
  std::vector<Slot> bigger(slots_.size() * 2);
  const std::size_t mask = bigger.size() - 1;
  for (const Slot& slot : slots_) {
    if (slot.dense < 0) continue;
    std::size_t s = hash(slot.key) & mask;
    while (bigger[s].dense >= 0) s = (s + 1) & mask;
    bigger[s] = slot;
  }
  slots_ = std::move(bigger);
  mask_ = mask;
}

DenseOrder IntIdRemap::finish(std::vector<std::int64_t>& sorted_ids) const {
  DenseOrder order;
  order.rank = sorted_ranks(size(), [&](std::int64_t a, std::int64_t b) { return seen_[a] < seen_[b]; });
  sorted_ids.assign(static_cast<std::size_t>(size()), 0);
  for (std::int64_t i = 0; i < size(); ++i) sorted_ids[order.rank[i]] = seen_[i];
  order.identity = true;
  for (std::int64_t i = 0; i < size() && order.identity; ++i) order.identity = sorted_ids[i] == i;
  return order;
}

std::int64_t StringIdRemap::insert(std::string_view id) {
  auto it = index_.find(id);
  if (it != index_.end()) return it->second;
  const std::string& stored = names_.emplace_back(id);
  const std::int64_t dense = size() - 1;
  index_.emplace(std::string_view(stored), dense);
  return dense;
}

DenseOrder StringIdRemap::finish(std::vector<std::string>& sorted_names) const {
  DenseOrder order;
  order.rank = sorted_ranks(size(), [&](std::int64_t a, std::int64_t b) { return names_[a] < names_[b]; });
  sorted_names.assign(static_cast<std::size_t>(size()), std::string());
  for (std::int64_t i = 0; i < size(); ++i) sorted_names[order.rank[i]] = names_[i];
  return order;
}

}  // namespace loom::graph::io
