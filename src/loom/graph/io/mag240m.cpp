#include "loom/graph/io/mag240m.hpp"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "loom/core/error.hpp"
#include "loom/format/npy.hpp"
#include "loom/graph/io/npy_import.hpp"
#include "loom/graph/io/split_dict.hpp"
#include "loom/graph/io/streamed_features.hpp"

namespace fs = std::filesystem;

namespace loom::graph::io {

namespace {

std::string require(const std::string& path) {
  if (!fs::is_regular_file(path))
    throw Error::in_file(path, 0, "missing (a file of MAG240M's layout: processed/paper/, split_dict.pt)");
  return path;
}

// An [N] array, as T, whose length must be `rows`.
template <class T>
std::vector<T> node_column(const std::string& path, std::int64_t rows) {
  const auto a = format::NpyArray::map(path);
  if (a.size() != rows || a.rows() != rows)
    throw Error::in_file(path, 0, fmt::format("has {} entries, node_feat.npy has {} rows", a.size(), rows));
  return format::values_as<T>(a);
}

}  // namespace

ImportedGraph read_mag240m(const Mag240mImportOptions& o) {
  require_source(o.dir, "SRC", /*directory=*/true);
  const std::string paper = o.dir + "/processed/paper";
  const std::string feat_path = require(paper + "/node_feat.npy");
  const std::string label_path = require(paper + "/node_label.npy");
  const std::string edge_path = require(o.dir + "/processed/paper___cites___paper/edge_index.npy");
  const std::string split_path = require(o.dir + "/split_dict.pt");

  ImportedGraph g;
  g.policy = o.policy;
  g.streamed_features = o.features_mapped ? mapped_npy_features(feat_path) : copied_npy_features(feat_path, o.nan_as);
  const std::int64_t papers = format::NpyArray::map(feat_path).rows();
  GraphData& data = g.nodes;
  data.rows_without_csr = papers;
  set_labels(node_column<double>(label_path, papers), 1, label_path, data);
  if (fs::is_regular_file(paper + "/node_year.npy"))
    data.node_arrays["node_year"] = node_column<std::int64_t>(paper + "/node_year.npy", papers);
  g.edges = mapped_edge_index(format::NpyArray::map(edge_path), papers);
  data.splits = official_splits(read_split_dict(split_path), split_path, papers);
  keep_labelled_split_ids(data, split_path);

  data.id_map_note = "ids used as given: MAG240M paper ids are 0..N-1";
  data.provenance["importer"] = "mag240m";
  data.provenance["source"] = fs::absolute(o.dir).lexically_normal().string();
  data.provenance["options"] = {{"features", o.features_mapped ? "map" : "copy"}};
  data.provenance["counts"]["nodes"] = papers;
  data.provenance["counts"]["edge_rows"] = g.edges->num_edges();
  data.provenance["counts"]["unlabeled_nodes"] = std::count(data.label.begin(), data.label.end(), -1);
  return g;
}

}  // namespace loom::graph::io
