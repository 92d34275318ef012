#include "loom/graph/io/ogb.hpp"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "loom/core/error.hpp"
#include "loom/core/line_reader.hpp"
#include "loom/core/fs.hpp"
#include "loom/graph/finite_values.hpp"
#include "loom/graph/io/csv_tables.hpp"
#include "loom/graph/io/edge_spill.hpp"
#include "loom/graph/io/ogb_binary.hpp"
#include "loom/graph/io/split_dict.hpp"

namespace fs = std::filesystem;

namespace loom::graph::io {

namespace {

std::string require_file(const std::string& dir, const std::string& stem) {
  const std::string path = find_maybe_gz(dir, stem);
  if (path.empty()) throw Error::in_file(dir + "/" + stem + ".gz", 0, "missing (required file of an OGB directory)");
  return path;
}

// The edges of edge.csv(.gz), spilled into `spill_dir` as they are read.
std::unique_ptr<EdgeSpill> read_edges(const std::string& path, std::int64_t num_nodes, const std::string& spill_dir) {
  core::LineReader reader(path);
  std::string_view line;
  std::vector<std::string_view> fields;
  auto edges = std::make_unique<EdgeSpill>(spill_dir, /*weighted=*/false);
  while (reader.next(line)) {
    core::split_fields(line, ",", /*collapse=*/false, fields);
    if (fields.size() != 2) throw reader.error(fmt::format("expected 2 fields (src,dst), found {}", fields.size()));
    std::int64_t ids[2];
    for (int f = 0; f < 2; ++f) {
      ids[f] = core::parse_int(fields[f], reader, f);
      if (ids[f] < 0 || ids[f] >= num_nodes)
        throw reader.error(
            fmt::format("field {}: node id {} is outside [0, {}) (the node count)", f + 1, ids[f], num_nodes));
    }
    edges->add(ids[0], ids[1]);
  }
  if (edges->size() == 0) throw Error::in_file(path, 0, "empty file (no edges)");
  edges->finish(num_nodes);
  return edges;
}

void check_rows(const std::string& path, std::int64_t rows, const std::string& what, std::int64_t expected,
                const std::string& source) {
  if (rows != expected)
    throw Error::in_file(path, 0, fmt::format("has {} {}, but {} says {}", rows, what, source, expected));
}

std::string choose_split(const std::string& dir, const std::string& wanted) {
  const auto kinds = ogb_split_kinds(dir);
  if (!wanted.empty()) {
    if (std::find(kinds.begin(), kinds.end(), wanted) == kinds.end())
      throw Error::in_argument("--split",
                               fmt::format("no split '{}' under {}/split (found: {})", wanted, dir,
                                           kinds.empty() ? "none" : fmt::format("{}", fmt::join(kinds, ", "))));
    return wanted;
  }
  if (kinds.size() > 1)
    throw Error::in_argument("--split", fmt::format("{}/split holds several split kinds ({}); choose one with --split",
                                                    dir, fmt::join(kinds, ", ")));
  return kinds.empty() ? "" : kinds[0];
}

// The CSV layout of raw/ (the small datasets) into `g`.
void read_ogb_csv(const std::string& raw, std::optional<float> nan_as, const std::string& spill_dir, ImportedGraph& g,
                  nlohmann::json& counts) {
  const std::string node_count_path = require_file(raw, "num-node-list.csv");
  const std::int64_t num_nodes = read_count(node_count_path);
  if (num_nodes <= 0) throw Error::in_file(node_count_path, 1, "node count must be positive");
  const std::string edge_path = require_file(raw, "edge.csv");
  g.edges = read_edges(edge_path, num_nodes, spill_dir);
  const std::int64_t edge_rows = g.edges->num_edges();
  const std::string edge_count_path = find_maybe_gz(raw, "num-edge-list.csv");
  if (!edge_count_path.empty())
    check_rows(edge_path, edge_rows, "edge rows", read_count(edge_count_path), edge_count_path);

  GraphData& data = g.nodes;
  data.rows_without_csr = num_nodes;
  counts["nodes"] = num_nodes;
  counts["edge_rows"] = edge_rows;
  if (const auto path = find_maybe_gz(raw, "node-feat.csv"); !path.empty()) {
    FloatRows feat = read_float_rows(path);
    check_rows(path, feat.rows, "feature rows", num_nodes, node_count_path);
    NonFinitePolicy non_finite{nan_as};
    enforce_finite(feat.values, feat.cols, path, "feature", non_finite, /*first_line=*/1);
    if (nan_as) data.provenance["non_finite"] = non_finite.to_json();
    data.feat = std::move(feat.values);
    data.feat_dim = feat.cols;
    data.feat_source = path;
  }
  if (const auto path = find_maybe_gz(raw, "node-label.csv"); !path.empty()) {
    LabelRows labels = read_label_rows(path);
    check_rows(path, labels.rows, "label rows", num_nodes, node_count_path);
    data.num_classes = labels.num_classes;
    if (labels.multi_label) {
      data.multi_label = std::move(labels.multi);
    } else {
      if (labels.num_classes == 0) throw Error::in_file(path, 0, "every node is unlabeled");
      data.label = std::move(labels.label);
      counts["unlabeled_nodes"] = labels.unlabeled;
      warn_if_classes_mostly_empty(data, path);
    }
  }
}

// The train, valid and test ids of split/<kind>: train/valid/test.csv(.gz), or split_dict.pt
// (its "valid" or "val", and "test" or MAG240M's "test-dev").
std::map<std::string, std::vector<std::int64_t>> read_splits(const std::string& split_dir, const std::string& kind,
                                                             std::int64_t num_nodes) {
  std::map<std::string, std::vector<std::int64_t>> splits;
  const std::string dict_path = split_dir + "/split_dict.pt";
  if (fs::is_regular_file(dict_path) && find_maybe_gz(split_dir, "train.csv").empty())
    return official_splits(read_split_dict(dict_path), dict_path, num_nodes);
  for (const char* name : {"train", "valid", "test"}) {
    const std::string path = find_maybe_gz(split_dir, std::string(name) + ".csv");
    if (path.empty())
      throw Error::in_file(
          split_dir + "/" + name + ".csv.gz", 0,
          fmt::format("missing: split '{}' needs train, valid and test files (or split_dict.pt)", kind));
    splits[name] = read_id_rows(path, num_nodes);
  }
  return splits;
}

}  // namespace

std::vector<std::string> ogb_split_kinds(const std::string& dir) {
  std::vector<std::string> kinds;
  const fs::path split_dir = fs::path(dir) / "split";
  std::error_code ec;
  if (!fs::is_directory(split_dir, ec)) return kinds;
  for (const auto& entry : fs::directory_iterator(split_dir))
    if (entry.is_directory()) kinds.push_back(entry.path().filename().string());
  std::sort(kinds.begin(), kinds.end());
  return kinds;
}

ImportedGraph read_ogb(const OgbImportOptions& o, const std::string& spill_dir) {
  require_source(o.dir, "SRC", /*directory=*/true);
  const std::string raw = o.dir + "/raw";
  if (!fs::is_directory(raw))
    throw Error::in_argument("SRC", "'" + o.dir + "' has no raw/ folder: not an OGB node-property directory");
  const std::string split_kind = choose_split(o.dir, o.split);

  ImportedGraph g;
  g.policy = o.policy;
  nlohmann::json counts;
  if (has_ogb_binary(raw))
    read_ogb_binary(raw, o.nan_as, spill_dir, g, counts);
  else
    read_ogb_csv(raw, o.nan_as, spill_dir, g, counts);
  GraphData& data = g.nodes;
  if (!split_kind.empty()) {
    data.splits = read_splits(o.dir + "/split/" + split_kind, split_kind, data.num_rows());
    keep_labelled_split_ids(data, o.dir + "/split/" + split_kind);
  }

  data.id_map_note = "ids used as given: OGB node ids are 0..N-1";
  data.provenance["importer"] = "ogb";
  data.provenance["source"] = fs::absolute(o.dir).lexically_normal().string();
  data.provenance["options"] = {{"split", split_kind}};
  for (const auto& [key, value] : counts.items()) data.provenance["counts"][key] = value;
  return g;
}

GraphData import_ogb(const OgbImportOptions& o) {
  const core::TempDir spill;
  return assemble_in_memory(read_ogb(o, spill.path()));
}

}  // namespace loom::graph::io
