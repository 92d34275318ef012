// "stream": a streaming partitioner (Fennel: Tsourakakis et al., WSDM 2014) for graphs METIS
// cannot hold: O(nodes) memory (a part id per node and the parts' loads) and one read of each
// node's neighbours per pass. Nodes arrive by decreasing degree (ties in a seeded random order);
// each goes to the part that maximises
//   |neighbours in p| - alpha * gamma * |p|^(gamma - 1),   gamma = 1.5,
//   alpha = sqrt(K) * E / N^1.5   (E undirected edges)
// among the parts under every balance cap (balance.hpp: 1.05 x the per-part share of nodes, of
// edges and of training nodes, the constraints `metis` balances). Ties go to the
// emptier part. Pass 1 is Fennel's one pass; each further pass restreams the nodes in the same
// order, taking each out of its part and placing it again against everyone's current part
// (Nishimura and Ugander, KDD 2013). Measured (bench/results/scale.md): on an SBM, degree order
// beat random, natural and BFS orders, and 4 passes brought the edge cut from 69% to 19% (METIS
// 18%). Deterministic for a store, K, seed and passes (serial).
#include <algorithm>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

#include "loom/core/log.hpp"
#include "loom/core/progress.hpp"
#include "loom/core/rng.hpp"
#include "loom/core/timer.hpp"
#include "loom/partition/balance.hpp"
#include "loom/partition/partitioner.hpp"

namespace loom::partition {

namespace {

constexpr double kGamma = 1.5;

// Nodes by decreasing degree, ties in a seeded random order.
std::vector<std::int64_t> stream_order(std::span<const std::int64_t> indptr, std::uint64_t seed) {
  std::vector<std::int64_t> order(indptr.size() - 1);
  std::iota(order.begin(), order.end(), 0);
  core::Rng rng(seed);
  core::shuffle(order.begin(), order.end(), rng);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::int64_t a, std::int64_t b) { return indptr[a + 1] - indptr[a] > indptr[b + 1] - indptr[b]; });
  return order;
}

class StreamPartitioner final : public Partitioner {
 public:
  explicit StreamPartitioner(int passes) : passes_(passes) {}
  std::string name() const override { return "stream"; }

  std::vector<std::int32_t> partition(const graph::GraphStore& store, int num_parts, std::uint64_t seed) const override {
    const std::int64_t n = store.num_nodes();
    std::vector<std::int32_t> part(static_cast<std::size_t>(n), num_parts == 1 ? 0 : -1);
    if (num_parts == 1) return part;
    core::Timer timer;
    const graph::Csr& csr = store.csr();
    const auto indptr = csr.indptr();
    const double k = num_parts;
    const double alpha = std::sqrt(k) * (static_cast<double>(csr.num_edges()) / 2.0) / std::pow(static_cast<double>(n), kGamma);
    BalanceLoads loads(store, num_parts);
    const std::vector<std::int64_t> order = stream_order(indptr, seed);
    std::vector<double> neighbours(static_cast<std::size_t>(num_parts));

    core::ProgressBar bar("stream partition", n * passes_, "nodes");
    csr.visit([&](auto view) {
      for (int pass = 0; pass < passes_; ++pass) {
        for (std::int64_t i = 0; i < n; ++i) {
          const std::int64_t v = order[i];
          if (part[v] >= 0) loads.remove(part[v], v);
          std::fill(neighbours.begin(), neighbours.end(), 0.0);
          for (const auto u : view.neighbors(v))
            if (part[u] >= 0 && u != v) neighbours[part[u]] += 1;
          int best = -1;
          double best_score = 0;
          for (int p = 0; p < num_parts; ++p) {
            if (!loads.fits(p, v)) continue;
            const double score = neighbours[p] - alpha * kGamma * std::pow(static_cast<double>(loads.nodes(p)), kGamma - 1);
            if (best < 0 || score > best_score || (score == best_score && loads.nodes(p) < loads.nodes(best))) {
              best = p;
              best_score = score;
            }
          }
          if (best < 0)  // every part at a cap (a rounding corner): the emptiest one
            for (int p = 0; p < num_parts; ++p)
              if (best < 0 || loads.nodes(p) < loads.nodes(best)) best = p;
          part[v] = best;
          loads.add(best, v);
        }
        bar.update(n, fmt::format("pass {}", pass + 1));
      }
    });
    bar.finish();
    spdlog::info("stream: {} parts of {} nodes in {} passes in {:.1f}s", num_parts, n, passes_, timer.seconds());
    return part;
  }

 private:
  int passes_;
};

}  // namespace

std::unique_ptr<Partitioner> make_stream_partitioner(int passes) {
  LOOM_CHECK_ARG(passes >= 1, "--stream-passes", "must be at least 1, got {}", passes);
  return std::make_unique<StreamPartitioner>(passes);
}

}  // namespace loom::partition
