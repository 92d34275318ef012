#include "loom/feature/vip.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "loom/core/error.hpp"
#include "loom/core/parallel.hpp"

namespace loom::feature {

std::vector<double> vip_log_miss(const graph::Csr& graph, std::span<const std::int64_t> train_ids,
                                 std::int64_t batch_size, std::span<const std::int32_t> fanouts) {
  const std::int64_t n = graph.num_rows();
  LOOM_CHECK(graph.num_cols() == n, "VIP analysis needs a square CSR, got {} rows and {} columns", n, graph.num_cols());
  LOOM_CHECK_ARG(batch_size > 0, "--batch-size", "must be positive, got {}", batch_size);
  std::vector<double> previous(n, 0.0), current(n, 0.0), log_miss(n, 0.0);
  if (!train_ids.empty()) {
    const double p0 = std::min(1.0, static_cast<double>(batch_size) / static_cast<double>(train_ids.size()));
    for (const std::int64_t v : train_ids) {
      LOOM_CHECK(v >= 0 && v < n, "training id {} is outside the graph's {} nodes", v, n);
      previous[v] = p0;
    }
  }
  // keep[u] = log(1 - take[u]), take[u] = min(1, f_h / deg(u)) * p_{h-1}(u): the chance that u is
  // in hop h-1 and picks a given neighbour. Taken once per vertex, not once per edge.
  std::vector<double> keep(n);
  const auto indptr = graph.indptr();
  for (const std::int32_t fanout : fanouts) {
    core::parallel_for(
        n,
        [&](std::int64_t u) {
          const auto degree = static_cast<double>(indptr[u + 1] - indptr[u]);
          const double pick = fanout < 0 || degree <= fanout ? 1.0 : fanout / degree;
          const double take = pick * previous[u];
          keep[u] = take == 0 ? 0.0 : take >= 1 ? -std::numeric_limits<double>::infinity() : std::log1p(-take);
        },
        4096);
    graph.visit([&](auto view) {
      core::parallel_for(
          n,
          [&](std::int64_t v) {
            double log_absent = 0;  // log(1 - p_h(v))
            for (const auto u : view.neighbors(v)) log_absent += keep[u];
            current[v] = -std::expm1(log_absent);
            log_miss[v] -= log_absent;
          },
          1024);
    });
    std::swap(previous, current);
  }
  return log_miss;
}

std::vector<double> vip_probabilities(const graph::Csr& graph, std::span<const std::int64_t> train_ids,
                                      std::int64_t batch_size, std::span<const std::int32_t> fanouts) {
  auto p = vip_log_miss(graph, train_ids, batch_size, fanouts);
  for (auto& x : p) x = -std::expm1(-x);
  return p;
}

}  // namespace loom::feature
