#include "loom/embed/eval/link_prediction.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <absl/container/flat_hash_set.h>
#include <spdlog/spdlog.h>

#include "loom/core/error.hpp"
#include "loom/core/rng.hpp"
#include "loom/embed/eval/metrics.hpp"
#include "loom/graph/build_csr.hpp"

namespace loom::embed::eval {

namespace {

class DisjointSets {
 public:
  explicit DisjointSets(std::int64_t n) : parent_(static_cast<std::size_t>(n)) {
    std::iota(parent_.begin(), parent_.end(), std::int64_t{0});
  }
  std::int64_t find(std::int64_t x) {
    while (parent_[x] != x) x = parent_[x] = parent_[parent_[x]];
    return x;
  }
  bool unite(std::int64_t a, std::int64_t b) {
    a = find(a);
    b = find(b);
    if (a == b) return false;
    parent_[std::max(a, b)] = std::min(a, b);
    return true;
  }

 private:
  std::vector<std::int64_t> parent_;
};

template <class IdT>
bool has_edge(const graph::CsrView<IdT>& g, std::int64_t from, std::int64_t to) {
  const auto row = g.neighbors(from);
  return std::binary_search(row.begin(), row.end(), static_cast<IdT>(to));
}

// The undirected edges u < v, each once, after checking rows are sorted and symmetric.
template <class IdT>
std::vector<NodePair> undirected_edges(const graph::CsrView<IdT>& g) {
  std::vector<NodePair> edges;
  for (std::int64_t u = 0; u < g.num_rows(); ++u) {
    const auto row = g.neighbors(u);
    for (std::size_t i = 0; i < row.size(); ++i) {
      const std::int64_t v = row[i];
      LOOM_CHECK(i == 0 || row[i - 1] <= row[i], "link prediction needs sorted CSR rows; row {} is not sorted", u);
      if (v <= u || (i > 0 && row[i - 1] == row[i])) continue;
      LOOM_CHECK(has_edge(g, v, u), "link prediction needs an undirected graph; edge {} -> {} has no reverse", u, v);
      edges.push_back({u, v});
    }
  }
  return edges;
}

// As many node pairs as `count` that are no edge of the graph, no self-loop and no repeat.
template <class IdT>
std::vector<NodePair> draw_negatives(const graph::CsrView<IdT>& g, std::size_t count, core::Rng rng) {
  const std::int64_t n = g.num_rows();
  std::vector<NodePair> negatives;
  absl::flat_hash_set<std::uint64_t> seen;
  const auto un = static_cast<std::uint64_t>(n);
  while (negatives.size() < count) {
    auto u = static_cast<std::int64_t>(rng.below(un));
    auto v = static_cast<std::int64_t>(rng.below(un));
    if (u == v) continue;
    if (u > v) std::swap(u, v);
    if (has_edge(g, u, v) || !seen.insert(static_cast<std::uint64_t>(u) * un + static_cast<std::uint64_t>(v)).second)
      continue;
    negatives.push_back({u, v});
  }
  return negatives;
}

template <class IdT>
LinkSplit split_view(const graph::CsrView<IdT>& g, const LinkSplitOptions& options) {
  const std::int64_t n = g.num_rows();
  const auto edges = undirected_edges(g);
  const auto m = static_cast<std::int64_t>(edges.size());
  const core::Rng root(options.seed);

  std::vector<std::int64_t> order(static_cast<std::size_t>(m));
  std::iota(order.begin(), order.end(), std::int64_t{0});
  auto order_rng = root.split(0);
  core::shuffle(order.begin(), order.end(), order_rng);

  std::vector<std::uint8_t> in_forest(static_cast<std::size_t>(m), 0);
  DisjointSets sets(n);
  for (const auto e : order) in_forest[e] = sets.unite(edges[e].u, edges[e].v) ? 1 : 0;

  LinkSplit split;
  split.total_edges = m;
  const std::int64_t target = std::llround(options.remove_fraction * static_cast<double>(m));
  std::vector<NodePair> positives;
  graph::EdgeList kept;
  kept.num_nodes = n;
  for (const auto e : order) {
    if (!in_forest[e] && static_cast<std::int64_t>(positives.size()) < target) {
      positives.push_back(edges[e]);
    } else {
      kept.src.push_back(edges[e].u);
      kept.dst.push_back(edges[e].v);
    }
  }
  split.removed_edges = static_cast<std::int64_t>(positives.size());
  if (split.removed_edges < target)
    spdlog::warn("link prediction: only {} of {} edges can be removed without disconnecting the graph",
                 split.removed_edges, target);
  LOOM_CHECK(split.removed_edges > 0, "link prediction: no edge can be removed without disconnecting the graph");

  const double possible = 0.5 * static_cast<double>(n) * static_cast<double>(n - 1) - static_cast<double>(m);
  LOOM_CHECK(possible >= 2.0 * static_cast<double>(split.removed_edges),
             "link prediction: the graph is too dense to draw {} negative pairs ({} non-edges)", split.removed_edges,
             possible);
  std::vector<NodePair> negatives = draw_negatives(g, positives.size(), root.split(1));

  const auto train_count = std::clamp<std::int64_t>(
      std::llround(options.train_fraction * static_cast<double>(split.removed_edges)), 1, split.removed_edges - 1);
  for (const auto* pairs : {&positives, &negatives}) {
    const std::uint8_t label = pairs == &positives ? 1 : 0;
    for (std::int64_t i = 0; i < split.removed_edges; ++i) {
      const bool train = i < train_count;
      (train ? split.train_pairs : split.test_pairs).push_back((*pairs)[static_cast<std::size_t>(i)]);
      (train ? split.train_labels : split.test_labels).push_back(label);
    }
  }

  graph::CsrBuildOptions build;
  build.symmetric = true;
  auto residual = graph::build_csr(kept, build);
  split.residual.indptr = std::move(residual.indptr);
  split.residual.indices = std::move(residual.indices);
  split.residual.directed = false;
  return split;
}

void pair_features(const NodeVectors& vectors, NodePair pair, EdgeOperator op, double* out) {
  const float* a = vectors.data.data() + pair.u * vectors.dim;
  const float* b = vectors.data.data() + pair.v * vectors.dim;
  for (std::int64_t j = 0; j < vectors.dim; ++j) {
    const double x = a[j], y = b[j];
    switch (op) {
      case EdgeOperator::kHadamard: out[j] = x * y; break;
      case EdgeOperator::kAverage: out[j] = 0.5 * (x + y); break;
      case EdgeOperator::kL1: out[j] = std::abs(x - y); break;
      case EdgeOperator::kL2: out[j] = (x - y) * (x - y); break;
    }
  }
}

// Features and labels of the pairs whose endpoints both have vectors.
std::pair<FeatureMatrix, std::vector<std::uint8_t>> pair_matrix(const NodeVectors& vectors,
                                                                const std::vector<NodePair>& pairs,
                                                                const std::vector<std::uint8_t>& labels,
                                                                EdgeOperator op, std::int64_t& skipped) {
  std::vector<std::size_t> usable;
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const auto [u, v] = pairs[i];
    LOOM_CHECK(u >= 0 && v >= 0 && u < vectors.num_nodes && v < vectors.num_nodes,
               "link prediction: pair ({}, {}) is outside the {} embedded nodes", u, v, vectors.num_nodes);
    if (vectors.present[static_cast<std::size_t>(u)] && vectors.present[static_cast<std::size_t>(v)])
      usable.push_back(i);
    else
      ++skipped;
  }
  FeatureMatrix x(static_cast<std::int64_t>(usable.size()), vectors.dim);
  std::vector<std::uint8_t> y(usable.size());
  for (std::size_t r = 0; r < usable.size(); ++r) {
    pair_features(vectors, pairs[usable[r]], op, x.row(static_cast<std::int64_t>(r)));
    y[r] = labels[usable[r]];
  }
  return {std::move(x), std::move(y)};
}

}  // namespace

LinkSplit linkpred_split(const graph::Csr& csr, const LinkSplitOptions& options) {
  LOOM_CHECK_ARG(options.remove_fraction > 0 && options.remove_fraction < 1, "--remove-fraction",
                 "fraction of edges to remove must be in (0, 1), got {}", options.remove_fraction);
  LOOM_CHECK_ARG(options.train_fraction > 0 && options.train_fraction < 1, "--train-fraction",
                 "fraction of pairs to train on must be in (0, 1), got {}", options.train_fraction);
  LOOM_CHECK(csr.num_cols() == csr.num_rows(), "link prediction needs a square adjacency, got {} rows and {} ids",
             csr.num_rows(), csr.num_cols());
  return csr.visit([&](auto g) { return split_view(g, options); });
}

LinkSplit linkpred_split(const graph::GraphStore& store, const LinkSplitOptions& options) {
  if (store.meta().directed) throw Error::in_file(store.dir(), 0, "link prediction needs an undirected graph store");
  if (store.meta().partition)
    throw Error::in_file(store.dir(), 0, "link prediction needs a whole graph, not a partition");
  auto split = linkpred_split(store.csr(), options);
  auto& r = split.residual;
  if (store.meta().id_map == graph::IdMapKind::kOrigId) r.orig_id = store.original_ids();
  if (store.meta().id_map == graph::IdMapKind::kNames) r.names = store.original_names();
  r.id_map_note = store.meta().id_map_note;
  r.provenance = {{"source", store.dir()},
                  {"linkpred_split",
                   {{"remove_fraction", options.remove_fraction},
                    {"seed", options.seed},
                    {"removed_edges", split.removed_edges},
                    {"total_edges", split.total_edges}}}};
  return split;
}

LinkPredResult evaluate_link_prediction(const NodeVectors& vectors, const LinkSplit& split, EdgeOperator op,
                                        const LogisticOptions& options) {
  LinkPredResult result;
  auto [train_x, train_y] = pair_matrix(vectors, split.train_pairs, split.train_labels, op, result.skipped_pairs);
  auto [test_x, test_y] = pair_matrix(vectors, split.test_pairs, split.test_labels, op, result.skipped_pairs);
  result.train_pairs = train_x.rows;
  result.test_pairs = test_x.rows;
  const auto model = fit_logistic(train_x, train_y, options);
  std::vector<double> scores(static_cast<std::size_t>(test_x.rows));
  for (std::int64_t i = 0; i < test_x.rows; ++i) scores[static_cast<std::size_t>(i)] = model.score(test_x.row(i));
  result.auc = roc_auc(scores, test_y);
  return result;
}

}  // namespace loom::embed::eval
