#include "loom/partition/label_clusters.hpp"

#include <algorithm>
#include <bit>

#include <fmt/format.h>
#include <omp.h>

#include "loom/core/error.hpp"
#include "loom/core/parallel.hpp"

namespace loom::partition {

namespace {

constexpr std::int64_t kGrain = 64;  // nodes per parallel task

// Neighbours per cluster for one node: an open-addressing table sized to the degree, and the
// clusters in order of first appearance (ties go to the first seen).
class ClusterCounts {
 public:
  void reset(std::size_t degree) {
    const std::size_t capacity = std::bit_ceil(std::max<std::size_t>(16, 2 * degree));
    if (capacity > keys_.size()) {
      keys_.assign(capacity, kEmpty);
      counts_.assign(capacity, 0);
    }
    for (const std::size_t slot : touched_) keys_[slot] = kEmpty;
    touched_.clear();
    mask_ = capacity - 1;  // a prefix of the table: every slot is empty after the reset
    shift_ = 64 - std::countr_zero(capacity);
  }
  void add(std::int64_t cluster) { ++counts_[slot_of(cluster)]; }
  std::int32_t count(std::int64_t cluster) const {
    for (std::size_t s = hash(cluster);; s = (s + 1) & mask_) {
      if (keys_[s] == cluster) return counts_[s];
      if (keys_[s] == kEmpty) return 0;
    }
  }
  // The cluster with most neighbours among those with room, `own` unless another has strictly more.
  std::int64_t best(std::int64_t own, std::span<const std::int64_t> size, std::int64_t max_size) const {
    std::int64_t best = own;
    std::int32_t best_count = count(own);
    for (const std::size_t slot : touched_) {
      if (counts_[slot] > best_count && size[keys_[slot]] < max_size) {
        best = keys_[slot];
        best_count = counts_[slot];
      }
    }
    return best;
  }

 private:
  static constexpr std::int64_t kEmpty = -1;
  std::size_t hash(std::int64_t key) const {
    return static_cast<std::size_t>((static_cast<std::uint64_t>(key) * 0x9E3779B97F4A7C15ull) >> shift_);
  }
  std::size_t slot_of(std::int64_t cluster) {
    std::size_t s = hash(cluster);
    while (keys_[s] != cluster && keys_[s] != kEmpty) s = (s + 1) & mask_;
    if (keys_[s] == kEmpty) {
      keys_[s] = cluster;
      counts_[s] = 0;
      touched_.push_back(s);
    }
    return s;
  }
  std::vector<std::int64_t> keys_;
  std::vector<std::int32_t> counts_;
  std::vector<std::size_t> touched_;
  std::size_t mask_ = 0;
  int shift_ = 63;
};

// One round over the nodes in `order`, a block at a time: the block's nodes propose in parallel
// against the clusters as they stood when it began, then move in order while their cluster has
// room. Returns how many changed cluster. The same at any thread count.
template <class View>
std::int64_t propagate(const View& view, std::span<const std::int64_t> order, std::int64_t block, std::int64_t max_size,
                       std::vector<std::int64_t>& cluster, std::vector<std::int64_t>& size,
                       std::vector<ClusterCounts>& scratch, core::ProgressBar* progress, int round) {
  const std::int64_t n = static_cast<std::int64_t>(order.size());
  std::vector<std::int64_t> proposal(static_cast<std::size_t>(block));
  std::int64_t moved = 0;
  for (std::int64_t begin = 0; begin < n; begin += block) {
    const std::int64_t end = std::min(n, begin + block);
    core::parallel_for(
        end - begin,
        [&](std::int64_t i) {
          const std::int64_t v = order[begin + i];
          ClusterCounts& counts = scratch[static_cast<std::size_t>(omp_get_thread_num())];
          const auto neighbors = view.neighbors(v);
          counts.reset(neighbors.size());
          for (const auto u : neighbors)
            if (u != v) counts.add(cluster[u]);
          proposal[i] = counts.best(cluster[v], size, max_size);
        },
        kGrain);
    for (std::int64_t i = 0; i < end - begin; ++i) {
      const std::int64_t v = order[begin + i], own = cluster[v], best = proposal[i];
      if (best == own || size[best] >= max_size) continue;
      --size[own];
      ++size[best];
      cluster[v] = best;
      ++moved;
    }
    if (progress) progress->update(end - begin, fmt::format("clusters, round {}", round));
  }
  return moved;
}

}  // namespace

std::int64_t stream_block_size(std::int64_t n) { return std::clamp<std::int64_t>(n / 256, 1, 8192); }

Clusters label_clusters(const graph::Csr& csr, std::span<const std::int64_t> order, std::int64_t max_size,
                        int max_rounds, core::ProgressBar* progress) {
  const std::int64_t n = csr.num_rows();
  LOOM_CHECK(static_cast<std::int64_t>(order.size()) == n, "label_clusters: an order of {} for {} nodes", order.size(),
             n);
  LOOM_CHECK(max_size >= 1 && max_rounds >= 0, "label_clusters: max_size {} and max_rounds {}", max_size, max_rounds);
  Clusters out;
  out.of_node.resize(static_cast<std::size_t>(n));
  for (std::int64_t v = 0; v < n; ++v) out.of_node[v] = v;
  {
    const std::int64_t block = stream_block_size(n);
    std::vector<std::int64_t> size(static_cast<std::size_t>(n), 1);
    std::vector<ClusterCounts> scratch(static_cast<std::size_t>(core::num_threads()));
    csr.visit([&](auto view) {
      while (out.rounds < max_rounds) {
        ++out.rounds;
        if (propagate(view, order, block, max_size, out.of_node, size, scratch, progress, out.rounds) * 1000 < n) break;
      }
    });
  }
  // Number the clusters densely, in order of first appearance.
  std::vector<std::int64_t> number(static_cast<std::size_t>(n), -1);
  for (auto& c : out.of_node) {
    if (number[c] < 0) number[c] = out.count++;
    c = number[c];
  }
  return out;
}

}  // namespace loom::partition
