#include "loom/graph/io/ogb_binary.hpp"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "loom/core/error.hpp"
#include "loom/core/log.hpp"
#include "loom/format/npz_array.hpp"
#include "loom/core/progress.hpp"
#include "loom/graph/io/edge_spill.hpp"
#include "loom/graph/io/streamed_features.hpp"

namespace loom::graph::io {

namespace {

constexpr std::int64_t kEdgeChunk = std::int64_t{1} << 20;

// The single entry of num_nodes_list / num_edges_list (one graph per dataset).
std::int64_t single_count(const format::ZipArchive& archive, const std::string& key) {
  format::NpzArrayReader reader(archive, key);
  const auto values = reader.read_rest_as<std::int64_t>();
  if (values.size() != 1)
    throw Error::in_file(reader.where(), 0,
                         fmt::format("holds {} graphs' counts; a node-property dataset is one graph", values.size()));
  if (values[0] < 0) throw Error::in_file(reader.where(), 0, fmt::format("negative count {}", values[0]));
  return values[0];
}

void read_ids(format::NpzArrayReader& reader, std::int64_t count, std::vector<std::int64_t>& out) {
  out.resize(static_cast<std::size_t>(count));
  if (reader.dtype() == format::DType::kInt64) {
    reader.read(out.data(), count);
    return;
  }
  std::vector<std::int32_t> narrow(static_cast<std::size_t>(count));
  reader.read(narrow.data(), count);
  std::copy(narrow.begin(), narrow.end(), out.begin());
}

// edge_index's two rows read side by side (a second stream skips to row 1), checked and spilled.
std::unique_ptr<EdgeSpill> read_edges(const format::ZipArchive& archive, std::int64_t num_nodes, std::int64_t num_edges,
                                      const std::string& spill_dir) {
  format::NpzArrayReader sources(archive, "edge_index"), targets(archive, "edge_index");
  const auto& shape = sources.shape();
  if (shape.size() != 2 || shape[0] != 2 ||
      (sources.dtype() != format::DType::kInt64 && sources.dtype() != format::DType::kInt32))
    throw Error::in_file(sources.where(), 0,
                         fmt::format("expected int64 [2, edges], found {} of shape [{}]",
                                     format::dtype_name(sources.dtype()), fmt::join(shape, ", ")));
  if (shape[1] != num_edges)
    throw Error::in_file(sources.where(), 0, fmt::format("has {} edges, num_edges_list says {}", shape[1], num_edges));
  targets.skip(num_edges);
  auto edges = std::make_unique<EdgeSpill>(spill_dir, /*weighted=*/false);
  std::vector<std::int64_t> src, dst;
  core::ProgressBar bar("import: edges", num_edges, "edges");
  for (std::int64_t first = 0; first < num_edges; first += kEdgeChunk) {
    const std::int64_t count = std::min(kEdgeChunk, num_edges - first);
    read_ids(sources, count, src);
    read_ids(targets, count, dst);
    for (std::int64_t i = 0; i < count; ++i) {
      for (const auto& [id, row] : {std::pair{src[i], 0}, std::pair{dst[i], 1}})
        if (id < 0 || id >= num_nodes)
          throw Error::in_file(sources.where(), 0,
                               fmt::format("row {}, entry {}: node id {} is outside [0, {}) (num_nodes_list)", row,
                                           first + i, id, num_nodes));
      edges->add(src[i], dst[i]);
    }
    bar.update(count);
  }
  bar.finish();
  if (num_edges == 0) throw Error::in_file(sources.where(), 0, "no edges");
  edges->finish(num_nodes);
  return edges;
}

// An [N] or [N, 1] array of `archive`, whole, as T.
template <class T>
std::vector<T> node_column(const format::ZipArchive& archive, const std::string& key, std::int64_t num_nodes) {
  format::NpzArrayReader reader(archive, key);
  const auto& shape = reader.shape();
  if (shape.empty() || shape[0] != num_nodes || reader.size() != num_nodes)
    throw Error::in_file(
        reader.where(), 0,
        fmt::format("expected {} rows of one value, found shape [{}]", num_nodes, fmt::join(shape, ", ")));
  return reader.read_rest_as<T>();
}

}  // namespace

bool has_ogb_binary(const std::string& raw) { return std::filesystem::is_regular_file(raw + "/data.npz"); }

void read_ogb_binary(const std::string& raw, std::optional<float> nan_as, const std::string& spill_dir,
                     ImportedGraph& g, nlohmann::json& counts) {
  const std::string data_path = raw + "/data.npz";
  const auto archive = format::ZipArchive::open(data_path);
  const std::int64_t num_nodes = single_count(archive, "num_nodes_list");
  if (num_nodes <= 0) throw Error::in_file(data_path, 0, "num_nodes_list: the node count must be positive");
  const std::int64_t num_edges = single_count(archive, "num_edges_list");
  const auto keys = format::npz_keys(archive);
  const auto has = [&](const char* key) { return std::find(keys.begin(), keys.end(), key) != keys.end(); };
  if (has("edge_feat")) spdlog::warn("{}: edge_feat is not read (Loom's stores hold node features)", data_path);
  GraphData& data = g.nodes;
  data.rows_without_csr = num_nodes;
  g.edges = read_edges(archive, num_nodes, num_edges, spill_dir);
  if (has("node_feat")) {
    format::NpzArrayReader feat(archive, "node_feat");
    if (feat.shape().size() != 2 || feat.shape()[0] != num_nodes)
      throw Error::in_file(
          feat.where(), 0,
          fmt::format("expected [{}, dim] floats, found shape [{}]", num_nodes, fmt::join(feat.shape(), ", ")));
    g.streamed_features = copied_npz_features(data_path, "node_feat", num_nodes, feat.shape()[1], nan_as);
  }
  if (has("node_year")) data.node_arrays["node_year"] = node_column<std::int64_t>(archive, "node_year", num_nodes);
  const std::string label_path = raw + "/node-label.npz";
  if (std::filesystem::is_regular_file(label_path)) {
    const auto labels = node_column<double>(format::ZipArchive::open(label_path), "node_label", num_nodes);
    set_labels(labels, 1, label_path, data);
    counts["unlabeled_nodes"] = std::count(data.label.begin(), data.label.end(), -1);
  }
  counts["nodes"] = num_nodes;
  counts["edge_rows"] = num_edges;
}

}  // namespace loom::graph::io
