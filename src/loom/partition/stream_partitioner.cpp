// "stream": a streaming partitioner for graphs METIS cannot hold, in O(nodes) memory and a read of
// each node's neighbours per round. Nodes are taken by decreasing degree (ties in a seeded random
// order). First they are grouped by size-constrained label propagation (label_clusters.hpp; each
// cluster at most 1/(8K) of the nodes); then whole clusters, the largest first, are placed as
// Fennel (Tsourakakis et al., WSDM 2014) places nodes: each to the part that maximises
//   |edges to p| - alpha * ((|p| + |C|)^gamma - |p|^gamma),   gamma = 1.5,
//   alpha = sqrt(K) * E / N^1.5   (E undirected edges)
// among the parts under every balance cap (balance.hpp: 1.05 x the per-part share of nodes, of
// edges and of training nodes, the constraints `metis` balances), ties to the emptier part; a
// cluster that fits no part is placed node by node. Each further pass restreams the nodes
// (Nishimura and Ugander, KDD 2013): takes each out of its part and places it again by the same
// score against everyone's current part. Placing clusters first is what lets few passes converge
// on graphs with many small communities: on an SBM of 2.5M nodes, 172 classes and degree 16, node
// by node Fennel cut 34% of the edges after 4 passes and 18% after 16 (bench/results/scale.md).
// Label propagation and restreaming take the stream in blocks (n/256 nodes, at most 8192) whose
// nodes are scored in parallel against the state as the block began and placed in order, so the
// parts are deterministic for a store, K, seed and passes at any thread count.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

#include <fmt/format.h>

#include "loom/core/log.hpp"
#include "loom/core/parallel.hpp"
#include "loom/core/progress.hpp"
#include "loom/core/rng.hpp"
#include "loom/core/timer.hpp"
#include "loom/partition/balance.hpp"
#include "loom/partition/label_clusters.hpp"
#include "loom/partition/partitioner.hpp"

namespace loom::partition {

namespace {

constexpr double kGamma = 1.5;
constexpr int kClusterRounds = 5;
constexpr std::int64_t kClustersPerPart = 8;  // a cluster holds at most 1/(8K) of the nodes

// Nodes by decreasing degree, ties in a seeded random order.
std::vector<std::int64_t> stream_order(std::span<const std::int64_t> indptr, std::uint64_t seed) {
  std::vector<std::int64_t> order(indptr.size() - 1);
  std::iota(order.begin(), order.end(), 0);
  core::Rng rng(seed);
  core::shuffle(order.begin(), order.end(), rng);
  std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
    return indptr[a + 1] - indptr[a] > indptr[b + 1] - indptr[b];
  });
  return order;
}

constexpr std::int64_t kCountBlock = 4096;  // a cluster's nodes per parallel task

// Adds to edges[p], for each part p, the edges from v to nodes placed there.
template <class View>
void count_node_edges(const View& view, std::int64_t v, const std::vector<std::int32_t>& part,
                      std::span<std::int64_t> edges) {
  for (const auto u : view.neighbors(v))
    if (part[u] >= 0 && u != v) ++edges[part[u]];
}

// For each part, the edges from `nodes` to nodes placed there (in parallel for large groups).
template <class View>
void count_edges(const View& view, std::span<const std::int64_t> nodes, const std::vector<std::int32_t>& part,
                 std::span<std::int64_t> edges) {
  const std::size_t k = edges.size();
  const std::int64_t n = static_cast<std::int64_t>(nodes.size());
  std::vector<std::int64_t> per_block(static_cast<std::size_t>((n + kCountBlock - 1) / kCountBlock) * k, 0);
  core::parallel_for_blocks(n, kCountBlock, [&](std::int64_t begin, std::int64_t end, std::int64_t b) {
    const std::span<std::int64_t> counts(per_block.data() + b * k, k);
    for (std::int64_t i = begin; i < end; ++i) count_node_edges(view, nodes[i], part, counts);
  });
  std::fill(edges.begin(), edges.end(), 0);
  for (std::size_t i = 0; i < per_block.size(); ++i) edges[i % k] += per_block[i];
}

// The parts' loads and Fennel's score for adding nodes to a part, given their edges there.
class FennelScore {
 public:
  FennelScore(const graph::GraphStore& store, int num_parts)
      : loads(store, num_parts),
        num_parts_(num_parts),
        alpha_(std::sqrt(static_cast<double>(num_parts)) * (static_cast<double>(store.csr().num_edges()) / 2.0) /
               std::pow(static_cast<double>(store.num_nodes()), kGamma)) {}

  // The best part for nodes weighing w with `edges` to each part, -1 where none has room for them.
  int best_part(const BalanceLoads::Weight& w, std::span<const std::int64_t> edges) const {
    int best = -1;
    double best_score = 0;
    for (int p = 0; p < num_parts_; ++p) {
      if (!loads.fits(p, w)) continue;
      const double score = static_cast<double>(edges[p]) - penalty(p, w.nodes);
      if (best < 0 || score > best_score || (score == best_score && loads.nodes(p) < loads.nodes(best))) {
        best = p;
        best_score = score;
      }
    }
    return best;
  }

  // Places node v, taken out of its part first if it has one, by its edges to each part; in the
  // emptiest part where no part has room for it (a rounding corner).
  void place(std::int64_t v, std::span<const std::int64_t> edges, std::vector<std::int32_t>& part) {
    if (part[v] >= 0) loads.remove(part[v], v);
    int best = best_part(loads.weight(v), edges);
    if (best < 0) best = emptiest();
    part[v] = best;
    loads.add(best, v);
  }

  BalanceLoads loads;

 private:
  int emptiest() const {
    int best = 0;
    for (int p = 1; p < num_parts_; ++p)
      if (loads.nodes(p) < loads.nodes(best)) best = p;
    return best;
  }

  // Fennel's cost of adding `nodes` nodes to part p: alpha (g(size + nodes) - g(size)), g(x) = x^gamma.
  // The cost of one node is kept per part while its size stays (a restream places nodes one by
  // one and weighs every part for each: two powers per part and node otherwise).
  double penalty(int p, std::int64_t nodes) const {
    const std::int64_t size = loads.nodes(p);
    const auto cost = [&] {
      const auto s = static_cast<double>(size);
      return alpha_ * (std::pow(s + static_cast<double>(nodes), kGamma) - std::pow(s, kGamma));
    };
    if (nodes != 1) return cost();
    auto& [kept_size, kept_cost] = unit_costs_[static_cast<std::size_t>(p)];
    if (kept_size != size) kept_size = size, kept_cost = cost();
    return kept_cost;
  }

  int num_parts_;
  double alpha_;
  mutable std::vector<std::pair<std::int64_t, double>> unit_costs_ =
      std::vector<std::pair<std::int64_t, double>>(static_cast<std::size_t>(num_parts_), {-1, 0.0});
};

// Places every cluster whole, the largest first (ties by id), or node by node where it fits no part.
template <class View>
void place_clusters(const View& view, const Clusters& clusters, int num_parts, FennelScore& fennel,
                    std::vector<std::int32_t>& part) {
  const std::int64_t n = static_cast<std::int64_t>(clusters.of_node.size());
  std::vector<std::int64_t> begin(static_cast<std::size_t>(clusters.count + 1), 0);
  for (const auto c : clusters.of_node) ++begin[c + 1];
  std::partial_sum(begin.begin(), begin.end(), begin.begin());
  std::vector<std::int64_t> members(static_cast<std::size_t>(n));
  {
    std::vector<std::int64_t> next(begin.begin(), begin.end() - 1);
    for (std::int64_t v = 0; v < n; ++v) members[next[clusters.of_node[v]]++] = v;
  }
  std::vector<std::int64_t> by_size(static_cast<std::size_t>(clusters.count));
  std::iota(by_size.begin(), by_size.end(), 0);
  std::stable_sort(by_size.begin(), by_size.end(),
                   [&](std::int64_t a, std::int64_t b) { return begin[a + 1] - begin[a] > begin[b + 1] - begin[b]; });
  std::vector<std::int64_t> edges(static_cast<std::size_t>(num_parts));
  for (const std::int64_t c : by_size) {
    const std::span<const std::int64_t> nodes(members.data() + begin[c], begin[c + 1] - begin[c]);
    BalanceLoads::Weight w;
    for (const auto v : nodes) w += fennel.loads.weight(v);
    count_edges(view, nodes, part, edges);
    const int best = fennel.best_part(w, edges);
    if (best < 0) {
      for (const auto v : nodes) {
        count_edges(view, std::span<const std::int64_t>(&v, 1), part, edges);
        fennel.place(v, edges, part);
      }
      continue;
    }
    for (const auto v : nodes) part[v] = best;
    fennel.loads.add(best, w);
  }
}

// One restreaming pass over `order`, a block at a time: the block's nodes count their edges to
// each part in parallel against the parts as the block began, then are placed again in order.
// The same at any thread count.
template <class View>
void restream(const View& view, std::span<const std::int64_t> order, int num_parts, FennelScore& fennel,
              std::vector<std::int32_t>& part) {
  const std::int64_t n = static_cast<std::int64_t>(order.size());
  const std::int64_t block = stream_block_size(n);
  const std::size_t k = static_cast<std::size_t>(num_parts);
  std::vector<std::int64_t> edges(static_cast<std::size_t>(block) * k);
  for (std::int64_t begin = 0; begin < n; begin += block) {
    const std::int64_t end = std::min(n, begin + block);
    core::parallel_for(
        end - begin,
        [&](std::int64_t i) {
          const std::span<std::int64_t> counts(edges.data() + i * k, k);
          std::fill(counts.begin(), counts.end(), 0);
          count_node_edges(view, order[begin + i], part, counts);
        },
        64);
    for (std::int64_t i = 0; i < end - begin; ++i)
      fennel.place(order[begin + i], std::span<const std::int64_t>(edges.data() + i * k, k), part);
  }
}

class StreamPartitioner final : public Partitioner {
 public:
  explicit StreamPartitioner(int passes) : passes_(passes) {}
  std::string name() const override { return "stream"; }

  std::vector<std::int32_t> partition(const graph::GraphStore& store, int num_parts,
                                      std::uint64_t seed) const override {
    const std::int64_t n = store.num_nodes();
    std::vector<std::int32_t> part(static_cast<std::size_t>(n), num_parts == 1 ? 0 : -1);
    if (num_parts == 1) return part;
    core::Timer timer;
    const graph::Csr& csr = store.csr();
    const std::vector<std::int64_t> order = stream_order(csr.indptr(), seed);
    core::ProgressBar bar("stream partition", n * (kClusterRounds + passes_), "nodes");
    const Clusters clusters =
        label_clusters(csr, order, std::max<std::int64_t>(1, n / (kClustersPerPart * num_parts)), kClusterRounds, &bar);
    bar.update(n * (kClusterRounds - clusters.rounds), "clusters done");
    spdlog::info("stream: {} clusters after {} rounds of label propagation in {:.1f}s", clusters.count, clusters.rounds,
                 timer.seconds());
    FennelScore fennel(store, num_parts);
    csr.visit([&](auto view) {
      place_clusters(view, clusters, num_parts, fennel, part);
      bar.update(n, "clusters placed");
      for (int pass = 1; pass < passes_; ++pass) {
        restream(view, order, num_parts, fennel, part);
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
