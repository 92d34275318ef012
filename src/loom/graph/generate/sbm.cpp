#include "loom/graph/generate/sbm.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <numeric>

#include "loom/core/fs.hpp"
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
  core::parallel_for(
      o.classes,
      [&](std::int64_t c) {
        std::vector<double> class_w;
        for (auto i = index.offset[c]; i < index.offset[c + 1]; ++i) class_w.push_back(w[index.members[i]]);
        index.tables[c] = AliasTable(class_w);
      },
      1);
  return index;
}

}  // namespace

void check(const SbmOptions& o) {
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
  LOOM_CHECK_ARG(o.words >= 0 && o.words <= o.feat_dim, "--words", "must be in [0, --feat-dim ({})], got {}",
                 o.feat_dim, o.words);
  LOOM_CHECK_ARG(o.feat_noise >= 0 && std::isfinite(o.feat_noise), "--feat-noise", "must not be negative, got {}",
                 o.feat_noise);
  fraction_sizes(o.nodes, o.train, o.valid);
  check_generator_memory(o.nodes, o.classes, o.feat_dim);
}

namespace {

// What draws an SBM's edges and rows, O(nodes): classes, expected degrees and their alias tables.
struct SbmModel {
  SbmOptions o;
  core::Rng root;
  std::int64_t m = 0;  // edges drawn
  std::vector<std::int64_t> label;
  ClassIndex classes;
  AliasTable all_nodes;
  double intra = 1.0;            // with one class every edge is intra-class
  std::vector<float> centroids;  // one row of feat_dim per class

  explicit SbmModel(const SbmOptions& options) : o(options), root(options.seed) {
    m = static_cast<std::int64_t>(std::llround(static_cast<double>(o.nodes) * o.avg_degree / 2.0));
    label = assign_classes(o, root);
    const std::vector<double> weights = expected_degree_weights(o, root);
    classes = index_classes(o, label, weights);
    all_nodes = AliasTable(weights);
    intra = o.classes == 1 ? 1.0 : o.homophily;
    // Centroids with entries N(0, 1/feat_dim): norm ~1, so feat_noise means the same at any width.
    centroids = gaussian_features(
        o.classes,
        GaussianFeatures{
            o.feat_dim, {}, {}, 1.0 / std::sqrt(static_cast<double>(o.feat_dim)), root.split(kStreamCentroids)});
  }

  // Edges [begin, end) (block-aligned begin) into src/dst, each block from its own stream.
  void draw(std::int64_t begin, std::int64_t end, std::int64_t* src, std::int64_t* dst) const {
    core::parallel_for_blocks(end - begin, kEdgeBlock, [&](std::int64_t first, std::int64_t last, std::int64_t) {
      core::Rng rng = root.split(kStreamEdges, static_cast<std::uint64_t>((begin + first) / kEdgeBlock));
      for (std::int64_t e = first; e < last; ++e) {
        const std::int64_t u = all_nodes.sample(rng);
        const std::int64_t c = label[u];
        std::int64_t v;
        if (rng.uniform() < intra) {
          v = classes.members[classes.offset[c] + classes.tables[c].sample(rng)];
        } else {
          do v = all_nodes.sample(rng);
          while (label[v] == c);
        }
        src[e] = u;
        dst[e] = v;
      }
    });
  }

  std::optional<GaussianFeatures> features() const {
    if (o.words > 0) return std::nullopt;
    return GaussianFeatures{o.feat_dim, label, centroids, o.feat_noise, root.split(kStreamFeatures)};
  }

  std::optional<BagOfWords> words() const {
    if (o.words == 0) return std::nullopt;
    return BagOfWords{o.feat_dim, o.words, o.classes, label, root.split(kStreamFeatures)};
  }

  std::map<std::string, std::vector<std::int64_t>> splits() const {
    std::vector<std::int64_t> pool(static_cast<std::size_t>(o.nodes));
    std::iota(pool.begin(), pool.end(), 0);
    return random_splits(std::move(pool), fraction_sizes(o.nodes, o.train, o.valid), "test", root.split(kStreamSplits));
  }

  nlohmann::json provenance() const {
    return {{"generator", "sbm"},         {"nodes", o.nodes},
            {"classes", o.classes},       {"avg_degree", o.avg_degree},
            {"homophily", o.homophily},   {"degree_skew", o.degree_skew},
            {"feat_noise", o.feat_noise}, {"seed", o.seed}};
  }
};

// Fraction of stored edges whose endpoints share a class.
double edge_homophily(const Csr& graph, std::span<const std::int64_t> label) {
  std::atomic<std::int64_t> same{0};
  graph.visit([&](auto view) {
    core::parallel_for_blocks(view.num_rows(), kNodeBlock, [&](std::int64_t begin, std::int64_t end, std::int64_t) {
      std::int64_t local = 0;
      for (std::int64_t v = begin; v < end; ++v)
        for (const auto u : view.neighbors(v)) local += label[static_cast<std::int64_t>(u)] == label[v];
      same.fetch_add(local, std::memory_order_relaxed);
    });
  });
  return graph.num_edges() == 0 ? 0.0 : static_cast<double>(same.load()) / static_cast<double>(graph.num_edges());
}

}  // namespace

GraphData generate_sbm(const SbmOptions& o) {
  check(o);
  core::Timer timer;
  const SbmModel model(o);
  GraphData data;
  data.label = model.label;
  data.num_classes = o.classes;
  EdgeList edges = draw_edge_list(model, o.nodes);
  spdlog::info("sbm: {} edges on {} nodes generated in {:.1f} s", model.m, o.nodes, timer.seconds());
  set_symmetric_graph(edges, data);
  data.feat_dim = o.feat_dim;
  if (const auto features = model.features()) data.feat = gaussian_features(o.nodes, *features);
  if (const auto words = model.words()) {  // in memory dense, stored sparse
    data.feat.assign(static_cast<std::size_t>(o.nodes * o.feat_dim), 0.0F);
    std::vector<std::int32_t> row;
    for (std::int64_t v = 0; v < o.nodes; ++v) {
      words->draw_row(v, row);
      for (const std::int32_t c : row) data.feat[v * o.feat_dim + c] = 1;
    }
    data.feat_layout = FeatureLayoutChoice::kSparse;
  }
  data.splits = model.splits();
  put_model_provenance(model.provenance(), data.provenance);
  const Csr graph = Csr::from_vectors(data.indptr, data.indices, o.nodes);
  data.provenance["edge_homophily"] = edge_homophily(graph, data.label);
  data.provenance["seconds"] = timer.seconds();
  return data;
}

void generate_sbm_store(const SbmOptions& options, const std::string& output_dir, const StoreWriteOptions& write) {
  check(options);
  core::check_output_target(output_dir, write.overwrite);
  const double row_bytes = options.words > 0 ? 8.0 + 4.0 * static_cast<double>(options.words)
                                             : static_cast<double>(options.feat_dim) * sizeof(float);
  core::check_disk_for(static_cast<double>(options.nodes) * options.avg_degree * sizeof(std::int32_t) +
                           static_cast<double>(options.nodes) * row_bytes,
                       output_dir, "--avg-degree",
                       fmt::format("{} nodes of average degree {} and {} features", options.nodes, options.avg_degree,
                                   options.feat_dim));
  core::Timer timer;
  const SbmModel model(options);
  write_synthetic_store(output_dir, write, model_edges(model, options.nodes),
                        model_rows(model, options.nodes, model.label, options.classes),
                        [&](const Csr& graph, nlohmann::json& p) {
                          p["edge_homophily"] = edge_homophily(graph, model.label);
                          p["seconds"] = timer.seconds();
                        });
  spdlog::info("sbm: {} nodes, {} edges drawn, written to {} in {:.1f} s", options.nodes, model.m, output_dir,
               timer.seconds());
}

}  // namespace loom::graph::generate
