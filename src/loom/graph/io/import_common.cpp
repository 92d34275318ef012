#include "loom/graph/io/import_common.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>

#include <fmt/format.h>

#include "loom/core/error.hpp"
#include "loom/core/fs.hpp"
#include "loom/core/memory.hpp"
#include "loom/format/npy.hpp"
#include "loom/core/log.hpp"
#include "loom/core/parallel.hpp"

namespace fs = std::filesystem;

namespace loom::graph::io {

void warn_if_classes_mostly_empty(const GraphData& d, const std::string& path) {
  if (d.label.empty() || d.num_classes < 4) return;
  // The distinct labels, counted in memory that grows with the nodes, not with the largest label.
  std::vector<std::int64_t> distinct;
  std::int64_t largest_at = 0;
  for (std::size_t i = 0; i < d.label.size(); ++i) {
    if (d.label[i] >= 0) distinct.push_back(d.label[i]);
    if (d.label[i] > d.label[static_cast<std::size_t>(largest_at)]) largest_at = static_cast<std::int64_t>(i);
  }
  std::sort(distinct.begin(), distinct.end());
  const auto count = static_cast<std::int64_t>(std::unique(distinct.begin(), distinct.end()) - distinct.begin());
  if (2 * count >= d.num_classes) return;
  spdlog::warn(
      "{}: the labels use {} of the {} classes that the largest, label {} (node {}), makes: a model gets "
      "{} outputs, most for classes no node has. A stray label? Classes are 0 .. the largest label",
      path, count, d.num_classes, d.label[static_cast<std::size_t>(largest_at)], largest_at, d.num_classes);
}

void set_labels(std::span<const double> values, std::int64_t cols, const std::string& path, GraphData& data) {
  if (cols > 1) {
    data.num_classes = cols;
    data.multi_label.resize(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (values[i] != 0.0 && values[i] != 1.0)
        throw Error::in_file(path, 0, fmt::format("entry {}: multi-label value {} is not 0 or 1", i, values[i]));
      data.multi_label[i] = static_cast<std::uint8_t>(values[i]);
    }
    return;
  }
  data.label.resize(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double v = values[i];
    if (std::isnan(v)) {
      data.label[i] = -1;
      continue;
    }
    if (v != std::floor(v) || v < -1 || v > 1e15)
      throw Error::in_file(path, 0,
                           fmt::format("entry {}: label {} is not a class id (an integer >= 0, or -1 for none)", i, v));
    data.label[i] = static_cast<std::int64_t>(v);
    data.num_classes = std::max(data.num_classes, data.label[i] + 1);
  }
  if (data.num_classes == 0) throw Error::in_file(path, 0, "every node is unlabeled");
  warn_if_classes_mostly_empty(data, path);
}

void keep_labelled_split_ids(GraphData& data, const std::string& source) {
  if (data.label.empty()) return;
  for (auto& [name, ids] : data.splits) {
    const auto before = ids.size();
    std::erase_if(ids, [&](std::int64_t v) { return data.label[static_cast<std::size_t>(v)] < 0; });
    if (ids.size() < before)
      spdlog::warn("{}: {} of the {} nodes of the {} split have no label and are left out of it", source,
                   before - ids.size(), before, name);
  }
}

nlohmann::json policy_json(const EdgePolicy& policy) {
  return {{"directed", policy.directed},
          {"duplicates", core::enum_name(kDuplicatePolicyNames, policy.duplicates)},
          {"self_loops", core::enum_name(kSelfLoopPolicyNames, policy.self_loops)}};
}

namespace {

CsrBuildOptions build_options(const EdgePolicy& policy) {
  CsrBuildOptions options;
  options.symmetric = !policy.directed;
  options.duplicates = policy.duplicates;
  options.self_loops = policy.self_loops;
  return options;
}

// Self-loops left in the CSR (kept by policy; stored once even when symmetric).
std::int64_t self_loops_kept(const Csr& csr) {
  std::atomic<std::int64_t> kept{0};
  csr.visit([&](auto view) {
    core::parallel_for(
        view.num_rows(),
        [&](std::int64_t u) {
          std::int64_t local = 0;
          for (const auto v : view.neighbors(u)) local += static_cast<std::int64_t>(v) == u;
          if (local) kept.fetch_add(local, std::memory_order_relaxed);
        },
        4096);
  });
  return kept.load();
}

void record_counts(const EdgePolicy& policy, std::int64_t input, std::int64_t loops_removed, std::int64_t duplicates,
                   std::int64_t stored, std::int64_t loops_kept, nlohmann::json& provenance) {
  auto& counts = provenance["counts"];
  counts["input_edges"] = input;
  counts["self_loops_removed"] = loops_removed;
  counts["duplicate_entries_removed"] = duplicates;
  counts["stored_edges"] = stored;
  if (!policy.directed) counts["undirected_edges"] = (stored - loops_kept) / 2 + loops_kept;
  provenance["edge_policy"] = policy_json(policy);
}

}  // namespace

void write_imported_store(ImportedGraph& g, const std::string& dir, format::DType feat_dtype,
                          std::int64_t memory_bytes) {
  GraphData& d = g.nodes;
  const std::int64_t rows = d.num_rows();
  const auto source = d.provenance.find("source");
  check_split_data(d, source != d.provenance.end() && source->is_string() ? source->get<std::string>() : "the input");
  const bool weighted = g.edges->weighted();
  const CsrWriteReport csr = write_csr_files(*g.edges, build_options(g.policy), dir, memory_bytes);
  g.edges.reset();  // its spill files go now
  std::int64_t loops_kept = 0;
  if (g.policy.self_loops == SelfLoopPolicy::kKeep)
    loops_kept = self_loops_kept(
        Csr(format::NpyArray::map(dir + "/indptr.npy"), format::NpyArray::map(dir + "/indices.npy"), rows));
  record_counts(g.policy, csr.input_edges, csr.self_loops_removed, csr.duplicates_removed, csr.num_edges, loops_kept,
                d.provenance);
  d.directed = g.policy.directed;
  const StreamedFeatures& streamed = g.streamed_features;
  // --features replaces streamed ones
  const bool in_memory = !d.feat.empty() || d.sparse_feat || streamed.dim == 0;
  if (in_memory && d.feat_dim > 0) {
    LOOM_CHECK(d.sparse_feat || static_cast<std::int64_t>(d.feat.size()) == rows * d.feat_dim,
               "import: feature matrix has {} values, expected {} nodes x {} dims", d.feat.size(), rows, d.feat_dim);
    write_feature_array(d, dir, feat_dtype);
  } else if (!in_memory) {
    d.feat_dim = streamed.dim;
    if (!streamed.mapped_from.empty()) feat_dtype = streamed.mapped_dtype;
    const nlohmann::json replaced = streamed.write(dir, feat_dtype);
    if (!replaced.is_null()) d.provenance["non_finite"] = replaced;
  }
  if (!d.node_arrays.empty())
    for (const auto& [name, values] : d.node_arrays) d.provenance["node_arrays"].push_back(name);
  write_node_arrays(d, dir, rows);
  StoreMeta meta = store_meta(d, rows, csr.num_edges, feat_dtype);
  meta.weighted = weighted;
  if (!in_memory) {
    meta.feat_from = streamed.mapped_from;
    meta.feat_from_digest = *streamed.mapped_digest;
  }
  finish_store(dir, meta);
}

GraphData assemble_in_memory(ImportedGraph g) {
  if (g.streamed_features.dim > 0 && g.nodes.feat.empty()) {
    const core::TempDir scratch;
    const nlohmann::json replaced = g.streamed_features.write(scratch.path(), format::DType::kFloat32);
    if (!replaced.is_null()) g.nodes.provenance["non_finite"] = replaced;
    g.nodes.feat = format::read_npy_as<float>(
        g.streamed_features.mapped_from.empty() ? scratch.path() + "/feat.npy" : g.streamed_features.mapped_from);
    g.nodes.feat_dim = g.streamed_features.dim;
  }
  EdgeList edges;
  edges.num_nodes = g.edges->num_nodes();
  g.edges->replay([&](const EdgeChunk& c) {
    edges.src.insert(edges.src.end(), c.src.begin(), c.src.end());
    edges.dst.insert(edges.dst.end(), c.dst.begin(), c.dst.end());
    edges.weight.insert(edges.weight.end(), c.weight.begin(), c.weight.end());
  });
  GraphData data = std::move(g.nodes);
  const auto input = static_cast<std::int64_t>(edges.src.size());
  BuiltCsr built = build_csr(edges, build_options(g.policy));
  data.indptr = std::move(built.indptr);
  data.indices = std::move(built.indices);
  data.edge_weight = std::move(built.weight);
  data.directed = g.policy.directed;
  data.rows_without_csr = 0;
  const auto stored = static_cast<std::int64_t>(data.indices.size());
  const std::int64_t loops_kept = g.policy.self_loops == SelfLoopPolicy::kKeep
                                      ? self_loops_kept(Csr::from_vectors(data.indptr, data.indices, edges.num_nodes))
                                      : 0;
  record_counts(g.policy, input, built.self_loops_removed, built.duplicates_removed, stored, loops_kept,
                data.provenance);
  return data;
}

std::string find_maybe_gz(const std::string& dir, const std::string& stem) {
  const std::string base = dir + "/" + stem;
  const bool gz = fs::is_regular_file(base + ".gz"), plain = fs::is_regular_file(base);
  if (gz && plain)
    throw Error::in_file(
        base, 0, "both " + stem + " and " + stem + ".gz are here and Loom cannot tell which to read: remove one");
  return gz ? base + ".gz" : plain ? base : "";
}

void check_node_memory(std::int64_t num_nodes) {
  constexpr double kBytesPerNode = 24;
  core::check_memory_for(kBytesPerNode * static_cast<double>(num_nodes), "--num-nodes",
                         fmt::format("{} nodes' row counts, offsets and ids", num_nodes));
}

void require_source(const std::string& path, const std::string& argument, bool directory) {
  std::error_code ec;
  if (!fs::exists(path, ec)) throw Error::in_argument(argument, "'" + path + "' does not exist");
  if (directory && !fs::is_directory(path, ec)) throw Error::in_argument(argument, "'" + path + "' is not a directory");
  if (!directory && fs::is_directory(path, ec))
    throw Error::in_argument(argument, "'" + path + "' is a directory, expected a file");
}

}  // namespace loom::graph::io
