#include "loom/graph/generate/sbm.hpp"

#include <atomic>
#include <cmath>
#include <numeric>

#include "loom/core/error.hpp"
#include "loom/core/log.hpp"
#include "loom/core/parallel.hpp"
#include "loom/core/timer.hpp"
#include "loom/graph/generate/alias_table.hpp"
#include "loom/graph/generate/splits.hpp"
#include "loom/graph/generate/synthetic.hpp"

namespace loom::graph::generate {

namespace {

// Nodes grouped by class: members[offset[c] .. offset[c+1]) are class c's nodes, ascending, and
// each class has an alias table over its members' weights.
struct ClassIndex {
  std::vector<std::int64_t> offset, members;
  std::vector<AliasTable> tables;
};

// Balanced classes (v % classes) in a seeded random arrangement.
std::vector<std::int64_t> assign_classes(const SbmOptions& o, const core::Rng& root) {
  std::vector<std::int64_t> label(static_cast<std::size_t>(o.nodes));
  for (std::int64_t v = 0; v < o.nodes; ++v) label[v] = v % o.classes;
  core::Rng rng = root.split(kStreamClasses);
  core::shuffle(label.begin(), label.end(), rng);
  return label;
}

std::vector<double> expected_degree_weights(const SbmOptions& o, const core::Rng& root) {
  std::vector<double> w(static_cast<std::size_t>(o.nodes), 1.0);
  if (o.degree_skew == 0) return w;
  // Pareto(alpha = gamma - 1) weights: P(w > x) = x^-(gamma-1), density exponent gamma.
  const double exponent = -1.0 / (o.degree_skew - 1.0);
  core::parallel_for_blocks(o.nodes, kNodeBlock, [&](std::int64_t begin, std::int64_t end, std::int64_t block) {
    core::Rng rng = root.split(kStreamWeights, block);
    for (std::int64_t v = begin; v < end; ++v) w[v] = std::pow(1.0 - rng.uniform(), exponent);
  });
  return w;
}

ClassIndex index_classes(const SbmOptions& o, const std::vector<std::int64_t>& label, const std::vector<double>& w) {
  ClassIndex index;
  index.offset.assign(static_cast<std::size_t>(o.classes) + 1, 0);
  for (std::int64_t c : label) ++index.offset[c + 1];
  std::partial_sum(index.offset.begin(), index.offset.end(), index.offset.begin());
  index.members.resize(static_cast<std::size_t>(o.nodes));
  std::vector<std::int64_t> cursor(index.offset.begin(), index.offset.end() - 1);
  for (std::int64_t v = 0; v < o.nodes; ++v) index.members[cursor[label[v]]++] = v;
  index.tables.resize(static_cast<std::size_t>(o.classes));
  core::parallel_for(o.classes, [&](std::int64_t c) {
    std::vector<double> class_w;
    for (auto i = index.offset[c]; i < index.offset[c + 1]; ++i) class_w.push_back(w[index.members[i]]);
    index.tables[c] = AliasTable(class_w);
  }, 1);
  return index;
}

// Fraction of stored edges whose endpoints share a class.
double edge_homophily(const GraphData& data) {
  std::atomic<std::int64_t> same{0};
  const std::int64_t n = data.num_rows();
  core::parallel_for_blocks(n, kNodeBlock, [&](std::int64_t begin, std::int64_t end, std::int64_t) {
    std::int64_t local = 0;
    for (std::int64_t v = begin; v < end; ++v)
      for (auto e = data.indptr[v]; e < data.indptr[v + 1]; ++e) local += data.label[data.indices[e]] == data.label[v];
    same.fetch_add(local, std::memory_order_relaxed);
  });
  return data.indices.empty() ? 0.0 : static_cast<double>(same.load()) / static_cast<double>(data.indices.size());
}

}  // namespace

void validate(const SbmOptions& o) {
  LOOM_CHECK_ARG(o.nodes >= 2, "--nodes", "must be at least 2, got {}", o.nodes);
  LOOM_CHECK_ARG(o.classes >= 1, "--classes", "must be at least 1, got {}", o.classes);
  LOOM_CHECK_ARG(o.nodes >= o.classes, "--nodes", "{} nodes cannot hold {} classes (need nodes >= classes)", o.nodes,
                 o.classes);
  LOOM_CHECK_ARG(o.avg_degree > 0 && o.avg_degree < static_cast<double>(o.nodes), "--avg-degree",
                 "must be positive and below the number of nodes ({}), got {}", o.nodes, o.avg_degree);
  LOOM_CHECK_ARG(o.homophily >= 0 && o.homophily <= 1, "--homophily", "must be a fraction in [0, 1], got {}",
                 o.homophily);
  LOOM_CHECK_ARG(o.degree_skew == 0 || (o.degree_skew > 2 && std::isfinite(o.degree_skew)), "--degree-skew",
                 "must be a power-law exponent above 2 (or 0 for equal degrees), got {}", o.degree_skew);
  LOOM_CHECK_ARG(o.feat_dim >= 1, "--feat-dim", "must be at least 1, got {}", o.feat_dim);
  LOOM_CHECK_ARG(o.feat_noise >= 0 && std::isfinite(o.feat_noise), "--feat-noise", "must not be negative, got {}",
                 o.feat_noise);
  fraction_sizes(o.nodes, o.train, o.valid);
}

GraphData generate_sbm(const SbmOptions& o) {
  validate(o);
  core::Timer timer;
  const core::Rng root(o.seed);
  const std::int64_t n = o.nodes;
  const auto m = static_cast<std::int64_t>(std::llround(static_cast<double>(n) * o.avg_degree / 2.0));

  GraphData data;
  data.label = assign_classes(o, root);
  data.num_classes = o.classes;
  const std::vector<double> weights = expected_degree_weights(o, root);
  const ClassIndex classes = index_classes(o, data.label, weights);
  const AliasTable all_nodes(weights);
  const auto* label = data.label.data();
  // With one class every edge is intra-class.
  const double intra = o.classes == 1 ? 1.0 : o.homophily;

  EdgeList edges;
  edges.num_nodes = n;
  edges.src.resize(static_cast<std::size_t>(m));
  edges.dst.resize(static_cast<std::size_t>(m));
  core::parallel_for_blocks(m, kEdgeBlock, [&](std::int64_t begin, std::int64_t end, std::int64_t block) {
    core::Rng rng = root.split(kStreamEdges, block);
    for (std::int64_t e = begin; e < end; ++e) {
      const std::int64_t u = all_nodes.sample(rng);
      const std::int64_t c = label[u];
      std::int64_t v;
      if (rng.uniform() < intra) {
        v = classes.members[classes.offset[c] + classes.tables[c].sample(rng)];
      } else {
        do v = all_nodes.sample(rng);
        while (label[v] == c);
      }
      edges.src[e] = u;
      edges.dst[e] = v;
    }
  });
  spdlog::info("sbm: {} edges on {} nodes generated in {:.1f} s", m, n, timer.seconds());
  set_symmetric_graph(edges, data);

  // Centroids with entries N(0, 1/feat_dim): norm ~1, so feat_noise means the same at any width.
  const std::vector<float> centroids =
      gaussian_features(o.classes, o.feat_dim, {}, {}, 1.0 / std::sqrt(static_cast<double>(o.feat_dim)),
                        root.split(kStreamCentroids));
  data.feat_dim = o.feat_dim;
  data.feat = gaussian_features(n, o.feat_dim, data.label, centroids, o.feat_noise, root.split(kStreamFeatures));

  std::vector<std::int64_t> pool(static_cast<std::size_t>(n));
  std::iota(pool.begin(), pool.end(), 0);
  data.splits = random_splits(std::move(pool), fraction_sizes(n, o.train, o.valid), "test", root.split(kStreamSplits));

  data.provenance["generator"] = "sbm";
  data.provenance["nodes"] = o.nodes;
  data.provenance["classes"] = o.classes;
  data.provenance["avg_degree"] = o.avg_degree;
  data.provenance["homophily"] = o.homophily;
  data.provenance["degree_skew"] = o.degree_skew;
  data.provenance["feat_noise"] = o.feat_noise;
  data.provenance["seed"] = o.seed;
  data.provenance["edge_homophily"] = edge_homophily(data);
  data.provenance["seconds"] = timer.seconds();
  return data;
}

void generate_sbm_store(const SbmOptions& options, const std::string& output_dir, const StoreWriteOptions& write) {
  validate(options);
  build_and_write_store(output_dir, write, [&] { return generate_sbm(options); });
}

}  // namespace loom::graph::generate
