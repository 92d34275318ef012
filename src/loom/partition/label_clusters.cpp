#include "loom/partition/label_clusters.hpp"

#include <fmt/format.h>

#include "loom/core/error.hpp"

namespace loom::partition {

namespace {

constexpr std::int64_t kProgressEvery = 1 << 16;  // nodes between progress updates

// One round over the nodes in `order`; returns how many changed cluster.
template <class View>
std::int64_t propagate(const View& view, std::span<const std::int64_t> order, std::int64_t max_size,
                       std::vector<std::int64_t>& cluster, std::vector<std::int64_t>& size,
                       std::vector<std::int32_t>& count, std::vector<std::int64_t>& touched,
                       core::ProgressBar* progress, int round) {
  std::int64_t moved = 0, visited = 0;
  for (const std::int64_t v : order) {
    if (progress && ++visited % kProgressEvery == 0) progress->update(kProgressEvery, fmt::format("clusters, round {}", round));
    const std::int64_t own = cluster[v];
    touched.clear();
    for (const auto u : view.neighbors(v)) {
      if (u == v) continue;
      const std::int64_t c = cluster[u];
      if (count[c]++ == 0) touched.push_back(c);
    }
    std::int64_t best = own;
    std::int32_t best_count = count[own];
    for (const std::int64_t c : touched) {
      if (count[c] > best_count && size[c] < max_size) {
        best = c;
        best_count = count[c];
      }
    }
    for (const std::int64_t c : touched) count[c] = 0;
    if (best == own) continue;
    --size[own];
    ++size[best];
    cluster[v] = best;
    ++moved;
  }
  if (progress) progress->update(visited % kProgressEvery, fmt::format("clusters, round {}", round));
  return moved;
}

}  // namespace

Clusters label_clusters(const graph::Csr& csr, std::span<const std::int64_t> order, std::int64_t max_size,
                        int max_rounds, core::ProgressBar* progress) {
  const std::int64_t n = csr.num_rows();
  LOOM_CHECK(static_cast<std::int64_t>(order.size()) == n, "label_clusters: an order of {} for {} nodes",
             order.size(), n);
  LOOM_CHECK(max_size >= 1 && max_rounds >= 0, "label_clusters: max_size {} and max_rounds {}", max_size, max_rounds);
  Clusters out;
  out.of_node.resize(static_cast<std::size_t>(n));
  for (std::int64_t v = 0; v < n; ++v) out.of_node[v] = v;
  {
    std::vector<std::int64_t> size(static_cast<std::size_t>(n), 1);
    std::vector<std::int32_t> count(static_cast<std::size_t>(n), 0);
    std::vector<std::int64_t> touched;
    csr.visit([&](auto view) {
      while (out.rounds < max_rounds) {
        ++out.rounds;
        if (propagate(view, order, max_size, out.of_node, size, count, touched, progress, out.rounds) * 1000 < n) break;
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
