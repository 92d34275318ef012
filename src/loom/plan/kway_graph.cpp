#include "loom/plan/kway_graph.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <utility>

#include <fmt/format.h>

#include "loom/format/dtype.hpp"
#include "loom/core/enum_names.hpp"
#include "loom/core/error.hpp"
#include "loom/core/fs.hpp"
#include "loom/core/log.hpp"
#include "loom/feature/analysis_input.hpp"
#include "loom/graph/generate/rmat.hpp"
#include "loom/graph/info.hpp"
#include "loom/partition/partitioned_store.hpp"
#include "loom/partition/partitioner.hpp"
#include "loom/partition/relabel.hpp"

namespace loom::plan {

namespace {

// "1.2M" -> 1200000 (K, M, G, T: powers of 1000).
std::int64_t shape_count(const std::string& text, const std::string& key) {
  const std::string where = "--shape " + key;
  LOOM_CHECK_ARG(!text.empty(), where, "needs a value");
  double factor = 1;
  std::string digits = text;
  switch (std::toupper(static_cast<unsigned char>(text.back()))) {
    case 'K': factor = 1e3; break;
    case 'M': factor = 1e6; break;
    case 'G': factor = 1e9; break;
    case 'T': factor = 1e12; break;
    default: factor = 0;
  }
  if (factor > 0)
    digits.pop_back();
  else
    factor = 1;
  double value = 0;
  std::size_t used = 0;
  try {
    value = std::stod(digits, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  LOOM_CHECK_ARG(used == digits.size() && used > 0 && std::isfinite(value) && value > 0 && value * factor < 9e18, where,
                 "must be a positive count such as 111M, got '{}'", text);
  return static_cast<std::int64_t>(std::llround(value * factor));
}

// Distinct remote neighbours of each part's rows.
std::vector<std::int64_t> halo_sizes(const graph::Csr& csr, const partition::PartitionBook& book) {
  std::vector<std::int64_t> sizes;
  csr.visit([&](auto view) {
    for (int k = 0; k < book.num_parts(); ++k) {
      const partition::IdRange mine = book.range(k);
      std::vector<std::int64_t> remote;
      for (std::int64_t v = mine.begin; v < mine.end; ++v)
        for (const auto u : view.neighbors(v))
          if (!mine.contains(u)) remote.push_back(u);
      std::sort(remote.begin(), remote.end());
      sizes.push_back(std::unique(remote.begin(), remote.end()) - remote.begin());
    }
  });
  return sizes;
}

// `source` split K ways by `method` and relabelled; `train` in source ids.
KWayGraph split_kway(const graph::GraphStore& source, const std::vector<std::int64_t>& train, int parts,
                     partition::PartitionMethod method, std::uint64_t seed) {
  LOOM_CHECK_ARG(parts <= source.num_nodes(), "--hosts", "{} hosts for the {} nodes split (at most one host a node)",
                 parts, source.num_nodes());
  LOOM_CHECK_ARG(method != partition::PartitionMethod::kPtscotch, "--partition-method",
                 "ptscotch partitions under mpirun; a plan splits in one process (metis, stream, random or hash)");
  const auto partitioner = partition::make_partitioner(method);
  const std::vector<std::int32_t> assignment = partition::assign_parts(*partitioner, source, parts, seed);
  const partition::Relabelling relabelling = partition::relabel_by_part(assignment, parts);
  graph::GraphData data;
  partition::relabel_rows(source, relabelling, {0, source.num_nodes()}, data);
  KWayGraph g;
  g.csr = graph::Csr::from_vectors(std::move(data.indptr), data.indices, source.num_nodes());
  g.book = relabelling.book;
  g.train_ids.resize(static_cast<std::size_t>(parts));
  for (const std::int64_t v : train) {
    const std::int64_t id = relabelling.source_to_new[v];
    g.train_ids[g.book.owner(id)].push_back(id);
  }
  for (auto& ids : g.train_ids) std::sort(ids.begin(), ids.end());
  g.halo_sizes = halo_sizes(g.csr, g.book);
  return g;
}

// A quadrant probability of the stand-in's R-MAT: a number in (0, 1).
double shape_probability(const std::string& value, const std::string& key) {
  char* end = nullptr;
  const double p = std::strtod(value.c_str(), &end);
  LOOM_CHECK_ARG(!value.empty() && end == value.c_str() + value.size() && p > 0 && p < 1, "--shape",
                 "{} must be a probability in (0, 1), got '{}'", key, value);
  return p;
}

// The count --shape's `key` sets (nodes, edges, train, feat-dim, classes), or null.
std::int64_t* count_field(GraphShape& shape, const std::string& key) {
  const std::pair<const char*, std::int64_t GraphShape::*> fields[] = {{"nodes", &GraphShape::nodes},
                                                                       {"edges", &GraphShape::edges},
                                                                       {"train", &GraphShape::train_nodes},
                                                                       {"feat-dim", &GraphShape::feat_dim},
                                                                       {"classes", &GraphShape::classes}};
  for (const auto& [name, field] : fields)
    if (key == name) return &(shape.*field);  // input text: --shape
  return nullptr;
}

// The stand-in R-MAT probability --shape's `key` sets (rmat-a, rmat-b, rmat-c), or null.
double* probability_field(GraphShape& shape, const std::string& key) {
  const std::pair<const char*, double GraphShape::*> fields[] = {
      {"rmat-a", &GraphShape::rmat_a}, {"rmat-b", &GraphShape::rmat_b}, {"rmat-c", &GraphShape::rmat_c}};
  for (const auto& [name, field] : fields)
    if (key == name) return &(shape.*field);  // input text: --shape
  return nullptr;
}

}  // namespace

GraphShape parse_shape(const std::string& text) {
  GraphShape shape;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, comma - start);
    const std::size_t eq = item.find('=');
    LOOM_CHECK_ARG(eq != std::string::npos, "--shape", "expected key=value, got '{}'", item);
    const std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    if (key == "feat-dtype") {  // input text: --shape
      shape.feat_bytes = static_cast<std::int64_t>(
          format::dtype_size(core::parse_enum(format::kFloatDTypeNames, value, "--shape feat-dtype")));
    } else if (std::int64_t* count = count_field(shape, key)) {
      *count = shape_count(value, key);
    } else if (double* probability = probability_field(shape, key)) {
      *probability = shape_probability(value, key);
    } else {
      throw Error::in_argument(
          "--shape",
          fmt::format("unknown key '{}' (nodes, edges, train, feat-dim, classes, feat-dtype, rmat-a, rmat-b, rmat-c)",
                      key));
    }
    start = comma + 1;
  }
  LOOM_CHECK_ARG(shape.nodes > 0 && shape.edges > 0 && shape.train_nodes > 0 && shape.feat_dim > 0, "--shape",
                 "needs nodes, edges, train and feat-dim, e.g. nodes=111M,edges=3.2G,train=1.2M,feat-dim=128");
  LOOM_CHECK_ARG(shape.rmat_a + shape.rmat_b + shape.rmat_c < 1, "--shape",
                 "rmat-a + rmat-b + rmat-c must be below 1 (d = 1 - a - b - c > 0), got {} + {} + {}", shape.rmat_a,
                 shape.rmat_b, shape.rmat_c);
  LOOM_CHECK_ARG(shape.train_nodes <= shape.nodes, "--shape", "train ({}) exceeds nodes ({})", shape.train_nodes,
                 shape.nodes);
  return shape;
}

std::string method_name(partition::PartitionMethod method) {
  return core::enum_name(partition::kPartitionMethodNames, method);
}

KWayGraph kway_from_store(const std::string& store, int parts, partition::PartitionMethod method, std::uint64_t seed) {
  const feature::AnalysisInput in = feature::open_analysis_input(store);
  if (in.book.num_parts() == parts) {
    KWayGraph g;
    g.csr = in.topology.csr();
    g.book = in.book;
    g.train_ids = in.train_ids;
    g.halo_sizes = in.halo_sizes;
    g.origin = fmt::format("{}: its own {} parts", store, parts);
    return g;
  }
  std::vector<std::int64_t> train;
  for (const auto& ids : in.train_ids) train.insert(train.end(), ids.begin(), ids.end());
  KWayGraph g = split_kway(in.topology, train, parts, method, seed);
  g.origin = fmt::format("{}: {} {}-way split of its {} nodes (the store has {} part{})", store, method_name(method),
                         parts, in.book.num_nodes(), in.book.num_parts(), in.book.num_parts() == 1 ? "" : "s");
  return g;
}

namespace {

int stand_in_log2_nodes(const GraphShape& shape) {
  return std::clamp(static_cast<int>(std::ceil(std::log2(static_cast<double>(shape.nodes)))), 1, shape.stand_in_scale);
}

}  // namespace

std::int64_t stand_in_batch(const GraphShape& shape, std::int64_t batch_size) {
  const double ratio = std::max(1.0, static_cast<double>(shape.nodes) / std::ldexp(1.0, stand_in_log2_nodes(shape)));
  return std::max<std::int64_t>(1, std::llround(static_cast<double>(batch_size) / ratio));
}

StandIn::StandIn(const GraphShape& shape, std::int64_t batch_size, std::uint64_t seed) {
  graph::generate::RmatOptions rmat;
  rmat.scale = stand_in_log2_nodes(shape);
  // Symmetrising and removing duplicates keeps about half of R-MAT's generated edges as pairs.
  rmat.edge_factor = std::max(1.0, static_cast<double>(shape.edges) / static_cast<double>(shape.nodes) / 2);
  rmat.a = shape.rmat_a;
  rmat.b = shape.rmat_b;
  rmat.c = shape.rmat_c;
  rmat.classes = 2;
  rmat.train = static_cast<double>(shape.train_nodes) / static_cast<double>(shape.nodes);
  rmat.valid = 0;
  rmat.seed = seed;
  batch_size_ = stand_in_batch(shape, batch_size);
  scale_ = static_cast<double>(batch_size) / static_cast<double>(batch_size_);
  const std::string path = dir_.path() + "/stand-in";
  graph::generate::generate_rmat_store(rmat, path, {});
  store_ = graph::GraphStore::open(path);
  const auto split = store_.split("train");
  train_.assign(split.begin(), split.end());
  description_ = fmt::format(
      "stand-in for {} nodes, {} edges, {} training nodes: R-MAT scale {} (a={:.3g} b={:.3g} c={:.3g}), edge factor "
      "{:.3g}, "
      "{} nodes, {} edges; batch {} of its nodes stands for {} (each counted row x {:.4g})",
      shape.nodes, shape.edges, shape.train_nodes, rmat.scale, rmat.a, rmat.b, rmat.c, rmat.edge_factor,
      store_.num_nodes(), store_.csr().num_edges(), batch_size_, batch_size, scale_);
}

KWayGraph StandIn::split(int parts, partition::PartitionMethod method, std::uint64_t seed) const {
  KWayGraph g = split_kway(store_, train_, parts, method, seed);
  g.scale = scale_;
  g.origin = fmt::format("{}; {} {}-way", description_, method_name(method), parts);
  return g;
}

}  // namespace loom::plan
