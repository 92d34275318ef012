#include "loom/graph/io/npy_import.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>

#include <fmt/format.h>

#include "loom/core/error.hpp"
#include "loom/core/npy.hpp"

namespace fs = std::filesystem;

namespace loom::graph::io {

namespace {

using core::DType;

bool is_integer(DType d) {
  return d == DType::kBool || d == DType::kInt8 || d == DType::kUInt8 || d == DType::kInt32 || d == DType::kInt64 ||
         d == DType::kUInt64;
}
bool is_float(DType d) { return d == DType::kFloat16 || d == DType::kFloat32 || d == DType::kFloat64; }

// A 1-D integer array as int64.
std::vector<std::int64_t> read_int_vector(const std::string& path) {
  const auto a = core::NpyArray::map(path);
  if (a.ndim() != 1 || !is_integer(a.dtype()))
    throw Error::in_file(path, 0, fmt::format("expected a 1-D integer array, found {}-D {}", a.ndim(), core::dtype_name(a.dtype())));
  return core::read_npy_as<std::int64_t>(path);
}

void check_ids(const std::string& path, const std::vector<std::int64_t>& ids, std::int64_t n, const std::string& n_from) {
  for (std::size_t i = 0; i < ids.size(); ++i)
    if (ids[i] < 0 || ids[i] >= n)
      throw Error::in_file(path, 0, fmt::format("entry {}: node id {} is outside [0, {}) (node count from {})", i, ids[i], n, n_from));
}

// The node count and where it came from; every later source must agree.
struct NodeCount {
  std::int64_t value = -1;
  std::string from;
  void agree(std::int64_t rows, const std::string& source) {
    if (value < 0) {
      value = rows;
      from = source;
    } else if (rows != value) {
      throw Error::in_file(source, 0, fmt::format("has {} rows, but {} gives {} nodes", rows, from, value));
    }
  }
};

void read_labels(const std::string& path, NodeCount& count, GraphData& data) {
  const auto a = core::NpyArray::map(path);
  if (a.ndim() < 1 || a.ndim() > 2)
    throw Error::in_file(path, 0, fmt::format("expected a 1-D class id vector or a 2-D 0/1 matrix, found {}-D", a.ndim()));
  count.agree(a.rows(), path);
  const auto values = core::read_npy_as<double>(path);
  if (a.ndim() == 2 && a.cols() > 1) {
    data.num_classes = a.cols();
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
      throw Error::in_file(path, 0, fmt::format("entry {}: label {} is not a class id (an integer >= 0, or -1 for none)", i, v));
    data.label[i] = static_cast<std::int64_t>(v);
    data.num_classes = std::max(data.num_classes, data.label[i] + 1);
  }
  if (data.num_classes == 0) throw Error::in_file(path, 0, "every node is unlabeled");
}

}  // namespace

GraphData import_npy(const NpyImportOptions& o) {
  require_source(o.dir, "SRC", /*directory=*/true);
  auto file = [&](const char* name) { return o.dir + "/" + name; };
  auto has = [&](const char* name) { return fs::is_regular_file(file(name)); };
  const bool coo = has("src.npy") || has("dst.npy");
  const bool csr = has("indptr.npy") || has("indices.npy");
  if (coo && csr) throw Error::in_argument("SRC", "'" + o.dir + "' holds both src/dst.npy and indptr/indices.npy; keep one form");
  if (!coo && !csr) throw Error::in_argument("SRC", "'" + o.dir + "' has neither src.npy + dst.npy nor indptr.npy + indices.npy");
  const std::array<const char*, 2> edge_files =
      coo ? std::array<const char*, 2>{"src.npy", "dst.npy"} : std::array<const char*, 2>{"indptr.npy", "indices.npy"};
  for (const char* name : edge_files)
    if (!has(name)) throw Error::in_file(file(name), 0, "missing (needed with the other edge array)");

  NodeCount count;
  if (o.num_nodes >= 0) {
    LOOM_CHECK_ARG(o.num_nodes > 0, "--num-nodes", "must be positive");
    count.agree(o.num_nodes, "--num-nodes");
  }
  EdgeList edges;
  std::string src_path = file("src.npy"), dst_path = file("dst.npy");
  if (coo) {
    edges.src = read_int_vector(src_path);
    edges.dst = read_int_vector(dst_path);
    if (edges.src.size() != edges.dst.size())
      throw Error::in_file(dst_path, 0, fmt::format("has {} entries, but src.npy has {}", edges.dst.size(), edges.src.size()));
  } else {
    src_path = dst_path = file("indices.npy");
    const auto indptr = read_int_vector(file("indptr.npy"));
    edges.dst = read_int_vector(file("indices.npy"));
    if (indptr.empty() || indptr.front() != 0 || indptr.back() != static_cast<std::int64_t>(edges.dst.size()))
      throw Error::in_file(file("indptr.npy"), 0,
                           fmt::format("must start at 0 and end at the {} entries of indices.npy", edges.dst.size()));
    count.agree(static_cast<std::int64_t>(indptr.size()) - 1, file("indptr.npy") + " (rows)");
    edges.src.resize(edges.dst.size());
    for (std::size_t u = 0; u + 1 < indptr.size(); ++u) {
      if (indptr[u] > indptr[u + 1]) throw Error::in_file(file("indptr.npy"), 0, fmt::format("entry {}: decreases", u + 1));
      std::fill(edges.src.begin() + indptr[u], edges.src.begin() + indptr[u + 1], static_cast<std::int64_t>(u));
    }
  }
  if (edges.src.empty()) throw Error::in_file(src_path, 0, "no edges (empty array)");

  GraphData data;
  if (has("feat.npy")) {
    const auto a = core::NpyArray::map(file("feat.npy"));
    if (a.ndim() != 2 || !is_float(a.dtype()))
      throw Error::in_file(a.path(), 0, fmt::format("expected a 2-D float array, found {}-D {}", a.ndim(), core::dtype_name(a.dtype())));
    count.agree(a.rows(), a.path());
    data.feat = core::read_npy_as<float>(a.path());
    data.feat_dim = a.cols();
  }
  if (has("label.npy")) read_labels(file("label.npy"), count, data);
  if (has("orig_id.npy")) {
    data.orig_id = read_int_vector(file("orig_id.npy"));
    count.agree(static_cast<std::int64_t>(data.orig_id.size()), file("orig_id.npy"));
    data.id_map_note = "original ids from orig_id.npy";
  } else {
    data.id_map_note = "ids used as given";
  }
  if (count.value < 0) {
    const auto max_src = *std::max_element(edges.src.begin(), edges.src.end());
    const auto max_dst = *std::max_element(edges.dst.begin(), edges.dst.end());
    count.agree(std::max(max_src, max_dst) + 1, "the largest edge id + 1");
  }
  const std::int64_t n = count.value;
  check_ids(src_path, edges.src, n, count.from);
  check_ids(dst_path, edges.dst, n, count.from);
  edges.num_nodes = n;
  for (const char* name : {"train", "valid", "test"}) {
    const std::string path = file((std::string(name) + "_idx.npy").c_str());
    if (!fs::is_regular_file(path)) continue;
    auto ids = read_int_vector(path);
    check_ids(path, ids, n, count.from);
    data.splits[name] = std::move(ids);
  }

  data.provenance["importer"] = "npy";
  data.provenance["source"] = fs::absolute(o.dir).lexically_normal().string();
  data.provenance["options"] = {{"edges_from", coo ? "src/dst" : "indptr/indices"}, {"num_nodes", o.num_nodes}};
  data.provenance["counts"]["nodes"] = n;
  assemble_edges(edges, o.policy, data);
  return data;
}

}  // namespace loom::graph::io
