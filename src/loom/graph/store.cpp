#include "loom/core/json_number.hpp"
#include "loom/graph/store.hpp"

#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "loom/format/digest.hpp"
#include "loom/format/float_rows.hpp"
#include "loom/core/fs.hpp"
#include "loom/core/parallel.hpp"
#include "loom/graph/finite_values.hpp"
#include "loom/graph/store_check.hpp"
#include "loom/graph/store_invariants.hpp"

namespace fs = std::filesystem;

namespace loom::graph {

IdMapKind parse_id_map(const std::string& text, const std::string& path) {
  for (const auto& [name, kind] : kIdMapNames)
    if (text == name) return kind;
  throw Error::in_file(path, 0, fmt::format("id_map must be {}, found '{}'", core::enum_choices(kIdMapNames), text));
}

nlohmann::json GraphDescription::to_json() const {
  nlohmann::json j = {
      {"num_nodes", num_nodes},        {"num_edges", num_edges},     {"directed", directed},
      {"weighted", weighted},          {"feat_dim", feat_dim},       {"feat_dtype", format::dtype_name(feat_dtype)},
      {"num_classes", num_classes},    {"multi_label", multi_label}, {"splits", splits},
      {"id_map", id_map_name(id_map)}, {"id_map_note", id_map_note}};
  if (feat_layout == FeatureLayout::kSparse) {
    j["feat_layout"] = core::enum_name(kFeatureLayoutNames, feat_layout);
    j["feat_nnz"] = feat_nnz;
  }
  return j;
}

GraphDescription GraphDescription::from_json(const nlohmann::json& j, const std::string& path) {
  try {
    GraphDescription d;
    d.num_nodes = core::json_int<std::int64_t>(j.at("num_nodes"), path);
    d.num_edges = core::json_int<std::int64_t>(j.at("num_edges"), path);
    d.directed = j.at("directed").get<bool>();
    d.weighted = j.value("weighted", false);
    d.feat_dim = core::json_int<std::int64_t>(j.at("feat_dim"), path);
    d.feat_dtype = format::parse_feat_dtype(j.value("feat_dtype", "float32"), path);
    d.feat_layout = core::parse_enum(kFeatureLayoutNames, j.value("feat_layout", "dense"), path + " (feat_layout)");
    d.feat_nnz = core::json_int<std::int64_t>(j.value("feat_nnz", nlohmann::json(0)), path);
    d.num_classes = core::json_int<std::int64_t>(j.at("num_classes"), path);
    d.multi_label = j.at("multi_label").get<bool>();
    d.splits = core::json_int_map<std::int64_t>(j.at("splits"), path);
    d.id_map = parse_id_map(j.value("id_map", "identity"), path);
    d.id_map_note = j.value("id_map_note", "");
    return d;
  } catch (const nlohmann::json::exception& e) {
    throw Error::in_file(path, 0, std::string("malformed meta.json: ") + e.what());
  }
}

nlohmann::json StoreMeta::to_json() const {
  nlohmann::json j = GraphDescription::to_json();
  j["format"] = "loom-graph";
  j["version"] = 1;
  if (partition) {
    j["partition"] = {{"part", partition->part},
                      {"num_parts", partition->num_parts},
                      {"node_offset", partition->node_offset},
                      {"global_num_nodes", partition->global_num_nodes}};
  }
  if (!rows_from.empty()) j["rows_from"] = rows_from;
  if (!feat_from.empty()) j["feat_from"] = feat_from;
  if (!feat_index.empty()) j["feat_index"] = feat_index;
  if (!feat_from.empty() && !feat_from_digest.empty()) j["external_digests"] = {{feat_from, feat_from_digest}};
  j["provenance"] = provenance;
  return j;
}

std::optional<StoreKind> declared_store_kind(const nlohmann::json& meta) {
  if (!meta.is_object() || !meta.contains("format") || !meta["format"].is_string()) return std::nullopt;
  const std::string format = meta["format"].get<std::string>();
  for (const auto& [name, kind] : kStoreKindNames)
    if (name == format) return kind;
  return std::nullopt;
}

StoreMeta StoreMeta::from_json(const nlohmann::json& j, const std::string& path) {
  try {
    if (declared_store_kind(j) != StoreKind::kGraph)
      throw Error::in_file(path, 0, "not a Loom graph store (format != loom-graph)");
    StoreMeta m;
    static_cast<GraphDescription&>(m) = GraphDescription::from_json(j, path);
    if (j.contains("partition")) {
      const auto& p = j["partition"];
      m.partition = PartitionInfo{core::json_int<int>(p.at("part"), path), core::json_int<int>(p.at("num_parts"), path),
                                  core::json_int<std::int64_t>(p.at("node_offset"), path),
                                  core::json_int<std::int64_t>(p.at("global_num_nodes"), path)};
    }
    m.rows_from = j.value("rows_from", "");
    m.feat_from = j.value("feat_from", "");
    m.feat_index = j.value("feat_index", "");
    if (!m.feat_from.empty() && j.contains("external_digests") && j["external_digests"].contains(m.feat_from))
      m.feat_from_digest = j["external_digests"][m.feat_from].get<std::string>();
    if (!m.feat_from.empty() && !m.feat_index.empty() && !m.partition)
      throw Error::in_file(path, 0, "feat_index needs partition info");
    if (!m.feat_from.empty() && m.feat_index.empty() && m.partition)
      throw Error::in_file(path, 0, "a part's feat_from needs its feat_index");
    if (!m.rows_from.empty() && !m.partition) throw Error::in_file(path, 0, "rows_from without partition info");
    m.provenance = j.value("provenance", nlohmann::json::object());
    return m;
  } catch (const nlohmann::json::exception& e) {
    throw Error::in_file(path, 0, std::string("malformed meta.json: ") + e.what());
  }
}

void check_split_data(const GraphData& d, const std::string& source) {
  SplitIds ids;
  for (const auto& [name, values] : d.splits) ids[name] = values;
  const std::string overlap =
      split_overlap(ids, d.num_rows(), [&](const std::string& name) { return source + " (the " + name + " split)"; });
  if (!overlap.empty()) throw Error(overlap + ": " + leakage_advice());
}

void validate_graph_data(const GraphData& d) {
  const std::int64_t rows = d.num_rows();
  const std::int64_t cols = d.num_cols < 0 ? rows : d.num_cols;
  LOOM_CHECK(
      !d.indptr.empty() && d.indptr.front() == 0 && d.indptr.back() == static_cast<std::int64_t>(d.indices.size()),
      "graph: indptr does not match {} indices", d.indices.size());
  for (const auto v : d.indices) LOOM_CHECK(v >= 0 && v < cols, "graph: neighbour id {} outside [0, {})", v, cols);
  LOOM_CHECK(d.edge_weight.empty() || d.edge_weight.size() == d.indices.size(), "graph: {} edge weights for {} edges",
             d.edge_weight.size(), d.indices.size());
  if (d.feat_dim > 0 && d.sparse_feat)
    check_sparse_rows(*d.sparse_feat, rows, d.feat_dim, d.feat_source.empty() ? "graph: features" : d.feat_source);
  else if (d.feat_dim > 0)
    LOOM_CHECK(static_cast<std::int64_t>(d.feat.size()) == rows * d.feat_dim,
               "graph: feature matrix has {} values, expected {} nodes x {} dims", d.feat.size(), rows, d.feat_dim);
  if (!d.label.empty()) {
    LOOM_CHECK(static_cast<std::int64_t>(d.label.size()) == rows, "graph: {} labels for {} nodes", d.label.size(),
               rows);
    for (const auto y : d.label)
      LOOM_CHECK(y >= -1 && y < d.num_classes, "graph: label {} outside [-1, {})", y, d.num_classes);
  }
  if (!d.multi_label.empty())
    LOOM_CHECK(static_cast<std::int64_t>(d.multi_label.size()) == rows * d.num_classes,
               "graph: multi-label matrix has {} values, expected {} nodes x {} labels", d.multi_label.size(), rows,
               d.num_classes);
  for (const auto& [name, ids] : d.splits)
    for (const auto v : ids) LOOM_CHECK(v >= 0 && v < rows, "graph: {} split id {} outside [0, {})", name, v, rows);
  check_split_data(d, "graph");
  LOOM_CHECK(d.orig_id.empty() || static_cast<std::int64_t>(d.orig_id.size()) == rows,
             "graph: {} original ids for {} nodes", d.orig_id.size(), rows);
  LOOM_CHECK(d.names.empty() || static_cast<std::int64_t>(d.names.size()) == rows, "graph: {} names for {} nodes",
             d.names.size(), rows);
}

void write_csr_arrays(const GraphData& d, const std::string& dir) {
  const std::int64_t cols = d.num_cols < 0 ? d.num_rows() : d.num_cols;
  format::write_npy(dir + "/indptr.npy", d.indptr);
  if (fits_int32(cols)) {
    std::vector<std::int32_t> narrow(d.indices.size());
    core::parallel_for(
        static_cast<std::int64_t>(narrow.size()),
        [&](std::int64_t i) { narrow[i] = static_cast<std::int32_t>(d.indices[i]); }, 1 << 16);
    format::write_npy(dir + "/indices.npy", narrow);
  } else {
    format::write_npy(dir + "/indices.npy", d.indices);
  }
  if (!d.edge_weight.empty()) format::write_npy(dir + "/weight.npy", d.edge_weight);
}

void write_node_arrays(const GraphData& d, const std::string& dir, std::int64_t rows) {
  if (!d.label.empty()) format::write_npy(dir + "/label.npy", d.label);
  if (!d.multi_label.empty()) format::write_npy(dir + "/label.npy", d.multi_label, {rows, d.num_classes});
  for (const auto& [name, ids] : d.splits) format::write_npy(dir + "/" + name + "_idx.npy", ids);
  if (!d.orig_id.empty()) format::write_npy(dir + "/orig_id.npy", d.orig_id);
  for (const auto& [name, values] : d.node_arrays) {
    LOOM_CHECK(static_cast<std::int64_t>(values.size()) == rows, "node array {} has {} entries for {} rows", name,
               values.size(), rows);
    format::write_npy(dir + "/" + name + ".npy", values);
  }
  if (!d.names.empty()) {
    std::string text;
    for (const auto& name : d.names) text += name + "\n";
    core::write_text_file(dir + "/names.txt", text);
  }
}

StoreMeta store_meta(const GraphData& d, std::int64_t rows, std::int64_t edges, format::DType feat_dtype) {
  StoreMeta m;
  m.num_nodes = rows;
  m.num_edges = edges;
  m.directed = d.directed;
  m.weighted = !d.edge_weight.empty();
  m.feat_dim = d.feat_dim;
  m.feat_dtype = feat_dtype;
  if (d.feat_dim > 0 && stored_feature_layout(d) == FeatureLayout::kSparse) {
    m.feat_layout = FeatureLayout::kSparse;
    m.feat_nnz = d.sparse_feat ? d.sparse_feat->nnz() : count_nonzero(d.feat);
  }
  m.num_classes = (d.label.empty() && d.multi_label.empty()) ? 0 : d.num_classes;
  m.multi_label = !d.multi_label.empty();
  for (const auto& [name, ids] : d.splits) m.splits[name] = static_cast<std::int64_t>(ids.size());
  m.id_map = !d.names.empty() ? IdMapKind::kNames : (!d.orig_id.empty() ? IdMapKind::kOrigId : IdMapKind::kIdentity);
  m.id_map_note = d.id_map_note;
  m.partition = d.partition;
  m.provenance = d.provenance;
  return m;
}

FeatureLayout stored_feature_layout(const GraphData& d) {
  if (d.feat_layout == FeatureLayoutChoice::kDense) return FeatureLayout::kDense;  // no pass over the values
  if (d.sparse_feat) return resolve_feature_layout(d.feat_layout, d.sparse_feat->nnz(), d.num_rows() * d.feat_dim);
  return resolve_feature_layout(d.feat_layout, count_nonzero(d.feat), static_cast<std::int64_t>(d.feat.size()));
}

namespace {

// Dense rows into feat.npy, narrowed to `feat_dtype` (checked to fit).
void write_dense_rows(std::span<const float> feat, std::int64_t rows, std::int64_t dim, const std::string& source,
                      const std::string& dir, format::DType feat_dtype) {
  if (feat_dtype == format::DType::kFloat32) {
    format::write_npy(dir + "/feat.npy", feat, {rows, dim});
    return;
  }
  check_fits_dtype(feat, dim, feat_dtype, source);
  const std::vector<char> narrow = format::narrowed(feat, feat_dtype);
  format::write_npy(dir + "/feat.npy", feat_dtype, {rows, dim}, narrow.data());
}

// Sparse rows into the sparse layout's files as they are, values narrowed to `feat_dtype`.
void write_sparse_rows(const SparseRows& sparse, const std::string& source, const std::string& dir,
                       format::DType feat_dtype) {
  if (feat_dtype != format::DType::kFloat32 && !sparse.values.empty())
    check_fits_dtype(sparse.values, 1, feat_dtype, source);
  SparseRowsWriter writer(dir, feat_dtype);
  for (std::size_t r = 0; r + 1 < sparse.indptr.size(); ++r) {
    const auto begin = static_cast<std::size_t>(sparse.indptr[r]), end = static_cast<std::size_t>(sparse.indptr[r + 1]);
    const std::span<const std::int32_t> columns(sparse.indices.data() + begin, end - begin);
    writer.add_row(columns, sparse.values.empty() ? std::span<const float>{}
                                                  : std::span<const float>(sparse.values.data() + begin, end - begin));
  }
  writer.finish();
}

}  // namespace

void write_feature_array(const GraphData& d, const std::string& dir, format::DType feat_dtype) {
  const std::int64_t rows = d.num_rows();
  const std::string source = d.feat_source.empty() ? "the features" : d.feat_source;
  const bool sparse = stored_feature_layout(d) == FeatureLayout::kSparse;
  if (d.sparse_feat && sparse) {
    write_sparse_rows(*d.sparse_feat, source, dir, feat_dtype);
  } else if (d.sparse_feat) {  // stored dense, as asked
    write_dense_rows(dense_rows_of(*d.sparse_feat, d.feat_dim), rows, d.feat_dim, source, dir, feat_dtype);
  } else if (sparse) {
    if (feat_dtype != format::DType::kFloat32) check_fits_dtype(d.feat, d.feat_dim, feat_dtype, source);
    write_sparse_rows_of(d.feat, d.feat_dim, dir, feat_dtype);
  } else {
    write_dense_rows(d.feat, rows, d.feat_dim, source, dir, feat_dtype);
  }
}

void write_store_files(const GraphData& d, const std::string& dir, format::DType feat_dtype) {
  validate_graph_data(d);
  const std::int64_t rows = d.num_rows();
  write_csr_arrays(d, dir);
  if (d.feat_dim > 0) write_feature_array(d, dir, feat_dtype);
  write_node_arrays(d, dir, rows);
  finish_store(dir, store_meta(d, rows, static_cast<std::int64_t>(d.indices.size()), feat_dtype));
}

void finish_store(const std::string& dir, const StoreMeta& meta) {
  core::write_text_file(dir + "/meta.json", meta.to_json().dump(2) + "\n");
  format::record_digests(dir);
}

void write_graph_store(const GraphData& data, const std::string& dir, const StoreWriteOptions& options) {
  validate_graph_data(data);
  core::OutputDir out(dir, options.overwrite);
  write_store_files(data, out.path(), options.feat_dtype);
  out.commit();
}

void GraphStore::map_rows_from(GraphStore& g, const std::string& from, std::int64_t cols) {
  const format::NpyArray ptr = format::NpyArray::map(from + "/indptr.npy");
  const format::NpyArray idx = format::NpyArray::map(from + "/indices.npy");
  const std::int64_t begin = g.meta_.partition->node_offset, end = begin + g.meta_.num_nodes;
  if (ptr.dtype() != format::DType::kInt64 || ptr.ndim() != 1 || begin < 0 || end + 1 > ptr.size())
    throw Error::in_file(ptr.path(), 0,
                         fmt::format("does not hold rows [{}, {}) that {}/meta.json names", begin, end, g.dir_));
  const auto all = ptr.span<std::int64_t>();
  if (all[begin] < 0 || all[begin] > all[end] || all[end] > idx.size())
    throw Error::in_file(ptr.path(), 0, fmt::format("entries {} and {} do not bound rows of indices.npy", begin, end));
  std::vector<char> bytes(static_cast<std::size_t>(end - begin + 1) * sizeof(std::int64_t));
  auto* rebased = reinterpret_cast<std::int64_t*>(bytes.data());
  for (std::int64_t v = begin; v <= end; ++v) rebased[v - begin] = all[v] - all[begin];
  g.csr_ = Csr(format::NpyArray::from_bytes(format::DType::kInt64, {end - begin + 1}, std::move(bytes)),
               idx.slice(all[begin], all[end]), cols);
  if (g.meta_.weighted) g.weight_ = format::NpyArray::map(from + "/weight.npy").slice(all[begin], all[end]);
}

void GraphStore::map_features(GraphStore& g, const std::string& dir) {
  if (g.meta_.feat_dim > 0 && g.meta_.feat_layout == FeatureLayout::kSparse) {
    if (!g.meta_.feat_from.empty())
      throw Error::in_file(dir + "/meta.json", 0, "sparse features are held in the store, not mapped from elsewhere");
    g.sparse_feat_ = map_sparse_features(dir, g.meta_.num_nodes, g.meta_.feat_nnz, g.meta_.feat_dtype);
  } else if (g.meta_.feat_dim > 0 && g.meta_.feat_from.empty()) {
    g.feat_ = format::NpyArray::map(dir + "/feat.npy");
    if (g.feat_.rows() != g.meta_.num_nodes || g.feat_.cols() != g.meta_.feat_dim ||
        g.feat_.dtype() != g.meta_.feat_dtype)
      throw Error::in_file(dir + "/feat.npy", 0, "shape or dtype does not match meta.json");
  } else if (g.meta_.feat_dim > 0) {
    g.feat_ = format::NpyArray::map(g.meta_.feat_from);
    if (g.feat_.cols() != g.meta_.feat_dim || g.feat_.dtype() != g.meta_.feat_dtype)
      throw Error::in_file(g.meta_.feat_from, 0, fmt::format("shape or dtype does not match {}/meta.json", dir));
    if (g.meta_.feat_index.empty()) {  // a whole store whose rows stay in the imported file
      if (g.feat_.rows() != g.meta_.num_nodes)
        throw Error::in_file(g.meta_.feat_from, 0,
                             fmt::format("has {} rows, {}/meta.json says {}", g.feat_.rows(), dir, g.meta_.num_nodes));
    } else {
      const std::int64_t begin = g.meta_.partition->node_offset;
      const format::NpyArray index = format::NpyArray::map(dir + "/" + g.meta_.feat_index);
      if (index.dtype() != format::DType::kInt64 || begin + g.meta_.num_nodes > index.size())
        throw Error::in_file(index.path(), 0,
                             fmt::format("does not hold the rows [{}, {}) that {}/meta.json names", begin,
                                         begin + g.meta_.num_nodes, dir));
      g.feat_index_ = index.slice(begin, begin + g.meta_.num_nodes);
      check_ids_in_range(g.feat_index_.span<std::int64_t>(), 0, g.feat_.rows(), index.path(), "feature row", begin);
    }
  }
}

GraphStore GraphStore::open(const std::string& dir, bool verify) {
  const std::string meta_path = dir + "/meta.json";
  if (!fs::is_directory(dir)) throw Error::in_file(dir, 0, "not a directory (expected a Loom graph store)");
  if (!fs::exists(meta_path)) throw Error::in_file(dir, 0, "no meta.json: not a Loom graph store");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(core::read_text_file(meta_path));
  } catch (const nlohmann::json::exception& e) {
    throw Error::in_file(meta_path, 0, std::string("invalid JSON: ") + e.what());
  }
  if (declared_store_kind(j) == StoreKind::kPartitioned)
    throw Error::in_file(dir, 0,
                         "is a partitioned store; open one of its part-<k>/ stores or use a partition-aware command");
  if (verify) format::check_meta_seal(j, meta_path);
  GraphStore g;
  g.dir_ = dir;
  g.meta_ = StoreMeta::from_json(j, meta_path);
  const std::int64_t cols = g.meta_.partition ? g.meta_.partition->global_num_nodes : g.meta_.num_nodes;
  if (g.meta_.rows_from.empty()) {
    g.csr_ = Csr(format::NpyArray::map(dir + "/indptr.npy"), format::NpyArray::map(dir + "/indices.npy"), cols);
    if (g.meta_.weighted) g.weight_ = format::NpyArray::map(dir + "/weight.npy");
  } else {
    map_rows_from(g, dir + "/" + g.meta_.rows_from, cols);
  }
  if (g.csr_.num_rows() != g.meta_.num_nodes)
    throw Error::in_file(
        dir + "/indptr.npy", 0,
        "has " + std::to_string(g.csr_.num_rows()) + " rows, meta.json says " + std::to_string(g.meta_.num_nodes));
  map_features(g, dir);
  if (g.meta_.num_classes > 0) {
    g.label_ = format::NpyArray::map(dir + "/label.npy");
    if (g.label_.rows() != g.meta_.num_nodes)
      throw Error::in_file(dir + "/label.npy", 0, "row count does not match meta.json");
  }
  for (const auto& [name, size] : g.meta_.splits) {
    auto arr = format::NpyArray::map(dir + "/" + name + "_idx.npy");
    if (arr.dtype() != format::DType::kInt64 || arr.size() != size)
      throw Error::in_file(arr.path(), 0, "dtype or size does not match meta.json");
    g.splits_[name] = std::move(arr);
  }
  check_store_ranges(g);
  return g;
}

std::span<const std::int64_t> GraphStore::split(const std::string& name) const {
  auto it = splits_.find(name);
  if (it == splits_.end()) throw Error::in_file(dir_, 0, "store has no '" + name + "' split (" + name + "_idx.npy)");
  return it->second.span<std::int64_t>();
}

std::vector<std::int64_t> GraphStore::original_ids() const {
  if (meta_.id_map == IdMapKind::kOrigId) return format::read_npy_as<std::int64_t>(dir_ + "/orig_id.npy");
  std::vector<std::int64_t> ids(meta_.num_nodes);
  const std::int64_t offset = meta_.partition ? meta_.partition->node_offset : 0;
  for (std::int64_t i = 0; i < meta_.num_nodes; ++i) ids[i] = offset + i;
  return ids;
}

std::vector<std::string> GraphStore::original_names() const {
  std::vector<std::string> names;
  if (meta_.id_map != IdMapKind::kNames) return names;
  std::ifstream in(dir_ + "/names.txt");
  std::string line;
  while (std::getline(in, line)) names.push_back(line);
  if (static_cast<std::int64_t>(names.size()) != meta_.num_nodes)
    throw Error::in_file(
        dir_ + "/names.txt", 0,
        "has " + std::to_string(names.size()) + " names for " + std::to_string(meta_.num_nodes) + " nodes");
  return names;
}

}  // namespace loom::graph
