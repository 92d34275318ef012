#include "loom/graph/io/npy_import.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <limits>
#include <optional>
#include <span>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "loom/core/error.hpp"
#include "loom/core/log.hpp"
#include "loom/format/npy.hpp"
#include "loom/format/npz_array.hpp"
#include "loom/format/zip_archive.hpp"
#include "loom/core/parallel.hpp"
#include "loom/graph/finite_values.hpp"

namespace fs = std::filesystem;

namespace loom::graph::io {

namespace {

using format::DType;

bool is_integer(DType d) {
  return d == DType::kBool || d == DType::kInt8 || d == DType::kUInt8 || d == DType::kInt32 || d == DType::kInt64 ||
         d == DType::kUInt64;
}

// A 1-D integer array as int64.
std::vector<std::int64_t> read_int_vector(const std::string& path) {
  const auto a = format::NpyArray::map(path);
  if (a.ndim() != 1 || !is_integer(a.dtype()))
    throw Error::in_file(
        path, 0, fmt::format("expected a 1-D integer array, found {}-D {}", a.ndim(), format::dtype_name(a.dtype())));
  return format::read_npy_as<std::int64_t>(path);
}

// Entries [begin, begin + count) of a 1-D integer array, as int64.
void read_ints(const format::NpyArray& a, std::int64_t begin, std::int64_t count, std::int64_t* out) {
  const auto copy = [&](auto* typed) {
    core::parallel_for(
        count, [&](std::int64_t i) { out[i] = static_cast<std::int64_t>(typed[begin + i]); }, 1 << 16);
  };
  switch (a.dtype()) {
    case DType::kBool:
    case DType::kUInt8: copy(static_cast<const std::uint8_t*>(a.data())); break;
    case DType::kInt8: copy(static_cast<const std::int8_t*>(a.data())); break;
    case DType::kInt32: copy(static_cast<const std::int32_t*>(a.data())); break;
    case DType::kInt64: copy(static_cast<const std::int64_t*>(a.data())); break;
    case DType::kUInt64: copy(static_cast<const std::uint64_t*>(a.data())); break;
    default: throw Error::in_file(a.path(), 0, "expected an integer array");
  }
}

// A mapped 1-D integer array's entries, chunk by chunk: visit(first entry, values).
template <class Visit>
void for_each_chunk(const format::NpyArray& a, Visit&& visit) {
  constexpr std::int64_t kChunk = 1 << 22;
  std::vector<std::int64_t> values(static_cast<std::size_t>(std::min(kChunk, std::max<std::int64_t>(a.size(), 1))));
  for (std::int64_t begin = 0; begin < a.size(); begin += kChunk) {
    const std::int64_t count = std::min(kChunk, a.size() - begin);
    read_ints(a, begin, count, values.data());
    visit(begin, std::span<const std::int64_t>(values).first(static_cast<std::size_t>(count)));
  }
}

format::NpyArray map_int_vector(const std::string& path) {
  auto a = format::NpyArray::map(path);
  if (a.ndim() != 1 || !is_integer(a.dtype()))
    throw Error::in_file(
        path, 0, fmt::format("expected a 1-D integer array, found {}-D {}", a.ndim(), format::dtype_name(a.dtype())));
  return a;
}

// Every id of a mapped array in [0, n), else an error naming the file and entry; and the largest.
std::int64_t check_id_array(const format::NpyArray& a, std::int64_t n, const std::string& n_from) {
  std::int64_t largest = -1;
  for_each_chunk(a, [&](std::int64_t first, std::span<const std::int64_t> ids) {
    for (std::size_t i = 0; i < ids.size(); ++i) {
      const auto entry = first + static_cast<std::int64_t>(i);
      if (ids[i] < 0) throw Error::in_file(a.path(), 0, fmt::format("entry {}: node id {} is negative", entry, ids[i]));
      if (n >= 0 && ids[i] >= n)
        throw Error::in_file(
            a.path(), 0,
            fmt::format("entry {}: node id {} is outside [0, {}) (node count from {})", entry, ids[i], n, n_from));
      largest = std::max(largest, ids[i]);
    }
  });
  return largest;
}

// The edges of src.npy/dst.npy, or of indptr.npy/indices.npy (row u's entries are u -> v), and
// their weight.npy where given, read from the mapped arrays chunk by chunk on every replay.
class NpyEdges : public EdgeStream {
 public:
  NpyEdges(format::NpyArray src_or_indptr, format::NpyArray dst_or_indices, bool csr, std::int64_t num_nodes,
           std::optional<format::NpyArray> weight = std::nullopt)
      : a_(std::move(src_or_indptr)),
        b_(std::move(dst_or_indices)),
        csr_(csr),
        nodes_(num_nodes),
        weight_(std::move(weight)) {}
  std::int64_t num_nodes() const override { return nodes_; }
  std::int64_t num_edges() const override { return b_.size(); }
  bool weighted() const override { return weight_.has_value(); }
  void replay(const std::function<void(const EdgeChunk&)>& visit) const override {
    std::vector<std::int64_t> src;
    const std::vector<std::int64_t> indptr =
        csr_ ? format::read_npy_as<std::int64_t>(a_.path()) : std::vector<std::int64_t>{};
    std::int64_t row = 0;
    for_each_chunk(b_, [&](std::int64_t first, std::span<const std::int64_t> dst) {
      src.resize(dst.size());
      if (csr_) {
        for (std::size_t i = 0; i < dst.size(); ++i) {
          const std::int64_t e = first + static_cast<std::int64_t>(i);
          while (indptr[row + 1] <= e) ++row;
          src[i] = row;
        }
      } else {
        read_ints(a_, first, static_cast<std::int64_t>(dst.size()), src.data());
      }
      const std::span<const float> weight =
          weight_ ? weight_->span<float>().subspan(static_cast<std::size_t>(first), dst.size())
                  : std::span<const float>{};
      visit({src, dst, weight});
    });
  }

 private:
  format::NpyArray a_, b_;
  bool csr_;
  std::int64_t nodes_;
  std::optional<format::NpyArray> weight_;  // float32, one per edge
};

// weight.npy where DIR has it (mapped): one finite float32 per edge of the edge arrays.
std::optional<format::NpyArray> map_edge_weights(const std::string& dir, std::int64_t edges) {
  const std::string path = dir + "/weight.npy";
  if (!fs::is_regular_file(path)) return std::nullopt;
  auto a = format::NpyArray::map(path);
  if (a.ndim() != 1 || a.dtype() != format::DType::kFloat32 || a.size() != edges)
    throw Error::in_file(path, 0,
                         fmt::format("expected a 1-D float32 array of one weight per edge ({}), found {}-D {} of {}",
                                     edges, a.ndim(), format::dtype_name(a.dtype()), a.size()));
  const auto weight = a.span<float>();
  for (std::size_t e = 0; e < weight.size(); ++e)
    if (!std::isfinite(weight[e]))
      throw Error::in_file(path, 0, fmt::format("entry {}: weight {} is not finite", e, weight[e]));
  return a;
}

void check_ids(const std::string& path, const std::vector<std::int64_t>& ids, std::int64_t n,
               const std::string& n_from) {
  for (std::size_t i = 0; i < ids.size(); ++i)
    if (ids[i] < 0 || ids[i] >= n)
      throw Error::in_file(
          path, 0, fmt::format("entry {}: node id {} is outside [0, {}) (node count from {})", i, ids[i], n, n_from));
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
  const auto a = format::NpyArray::map(path);
  if (a.ndim() < 1 || a.ndim() > 2)
    throw Error::in_file(path, 0,
                         fmt::format("expected a 1-D class id vector or a 2-D 0/1 matrix, found {}-D", a.ndim()));
  count.agree(a.rows(), path);
  set_labels(format::values_as<double>(a), a.cols(), path, data);
}

// Names the .npy files of `dir` that import npy does not read (a misspelt split, say), so
// that none is left out without a word.
void warn_unread_arrays(const std::string& dir) {
  static const std::array<const char*, 12> kRead = {"src.npy",       "dst.npy",     "indptr.npy",   "indices.npy",
                                                    "feat.npy",      "label.npy",   "orig_id.npy",  "train_idx.npy",
                                                    "valid_idx.npy", "val_idx.npy", "test_idx.npy", "weight.npy"};
  std::vector<std::string> unread;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (entry.path().extension() == ".npy" && std::find(kRead.begin(), kRead.end(), name) == kRead.end())
      unread.push_back(name);
  }
  std::sort(unread.begin(), unread.end());
  if (!unread.empty())
    spdlog::warn(
        "import npy: {} not read (the arrays read are src/dst or indptr/indices, weight, feat, label, "
        "orig_id, train_idx, valid_idx or val_idx, test_idx)",
        fmt::join(unread, ", "));
}

}  // namespace

namespace {

// The two edge arrays of DIR, src/dst.npy or indptr/indices.npy, checked against each other (an
// indptr also fixes the node count).
struct EdgeArrays {
  format::NpyArray first, second;
  bool csr = false;
};
EdgeArrays open_edge_arrays(const NpyImportOptions& o, NodeCount& count) {
  auto file = [&](const char* name) { return o.dir + "/" + name; };
  auto has = [&](const char* name) { return fs::is_regular_file(file(name)); };
  const bool coo = has("src.npy") || has("dst.npy");
  const bool csr = has("indptr.npy") || has("indices.npy");
  if (coo && csr)
    throw Error::in_argument("SRC", "'" + o.dir + "' holds both src/dst.npy and indptr/indices.npy; keep one form");
  if (!coo && !csr)
    throw Error::in_argument("SRC", "'" + o.dir + "' has neither src.npy + dst.npy nor indptr.npy + indices.npy");
  const std::array<const char*, 2> edge_files =
      coo ? std::array<const char*, 2>{"src.npy", "dst.npy"} : std::array<const char*, 2>{"indptr.npy", "indices.npy"};
  for (const char* name : edge_files)
    if (!has(name)) throw Error::in_file(file(name), 0, "missing (needed with the other edge array)");
  EdgeArrays e{map_int_vector(file(edge_files[0])), map_int_vector(file(edge_files[1])), csr};
  if (coo) {
    if (e.first.size() != e.second.size())
      throw Error::in_file(e.second.path(), 0,
                           fmt::format("has {} entries, but src.npy has {}", e.second.size(), e.first.size()));
  } else {
    const auto indptr = format::read_npy_as<std::int64_t>(e.first.path());
    if (indptr.empty() || indptr.front() != 0 || indptr.back() != e.second.size())
      throw Error::in_file(e.first.path(), 0,
                           fmt::format("must start at 0 and end at the {} entries of indices.npy", e.second.size()));
    count.agree(static_cast<std::int64_t>(indptr.size()) - 1, e.first.path() + " (rows)");
    for (std::size_t u = 0; u + 1 < indptr.size(); ++u)
      if (indptr[u] > indptr[u + 1]) throw Error::in_file(e.first.path(), 0, fmt::format("entry {}: decreases", u + 1));
  }
  if (e.second.size() == 0) throw Error::in_file(e.first.path(), 0, "no edges (empty array)");
  return e;
}

// A SciPy sparse matrix saved by scipy.sparse.save_npz (a csr_matrix: indptr, indices, data,
// shape) as sparse rows, never widened: columns sorted within each row, duplicates summed (as
// SciPy reads them), explicit zeros dropped; values that are not finite an error or replaced.
void read_sparse_features(const std::string& path, NonFinitePolicy& non_finite, NodeCount& count, GraphData& data) {
  const auto archive = format::ZipArchive::open(path);
  const std::vector<std::string> keys = format::npz_keys(archive);
  for (const char* key : {"indptr", "indices", "data", "shape"})
    if (std::find(keys.begin(), keys.end(), key) == keys.end())
      throw Error::in_file(path, 0,
                           fmt::format("not a SciPy CSR matrix (scipy.sparse.save_npz of a csr_matrix holds indptr, "
                                       "indices, data and shape); it holds {}",
                                       fmt::join(keys, ", ")));
  const auto shape = format::NpzArrayReader(archive, "shape").read_rest_as<std::int64_t>();
  if (shape.size() != 2 || shape[0] < 0 || shape[1] <= 0 || shape[1] > std::numeric_limits<std::int32_t>::max())
    throw Error::in_file(path, 0, "shape: expected [rows, columns] with 1 to 2^31 - 1 columns");
  const auto indptr = format::NpzArrayReader(archive, "indptr").read_rest_as<std::int64_t>();
  const auto indices = format::NpzArrayReader(archive, "indices").read_rest_as<std::int64_t>();
  auto values = format::NpzArrayReader(archive, "data").read_rest_as<float>();
  if (static_cast<std::int64_t>(indptr.size()) != shape[0] + 1)
    throw Error::in_file(
        path, 0,
        fmt::format("indptr: {} offsets for {} rows (a csc_matrix? save its tocsr())", indptr.size(), shape[0]));
  if (indices.size() != values.size() || indptr.front() != 0 ||
      indptr.back() != static_cast<std::int64_t>(indices.size()))
    throw Error::in_file(
        path, 0,
        fmt::format("indptr ends at {}, for {} indices and {} values", indptr.back(), indices.size(), values.size()));
  enforce_finite(values, 1, path + " (data)", "feature", non_finite);
  SparseRows rows;
  rows.indptr.reserve(indptr.size());
  std::vector<std::pair<std::int64_t, float>> row;
  for (std::int64_t r = 0; r < shape[0]; ++r) {
    if (indptr[r] > indptr[r + 1]) throw Error::in_file(path, 0, fmt::format("indptr: decreases at row {}", r));
    row.clear();
    for (std::int64_t e = indptr[r]; e < indptr[r + 1]; ++e) {
      if (indices[e] < 0 || indices[e] >= shape[1])
        throw Error::in_file(
            path, 0,
            fmt::format("indices: entry {} (row {}) is column {}, outside [0, {})", e, r, indices[e], shape[1]));
      row.emplace_back(indices[e], values[e]);
    }
    std::sort(row.begin(), row.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (std::size_t k = 0; k < row.size(); ++k) {
      float v = row[k].second;
      while (k + 1 < row.size() && row[k + 1].first == row[k].first) v += row[++k].second;
      if (v == 0.0F) continue;
      rows.indices.push_back(static_cast<std::int32_t>(row[k].first));
      rows.values.push_back(v);
    }
    rows.indptr.push_back(rows.nnz());
  }
  count.agree(shape[0], path);
  data.feat_dim = shape[1];
  data.feat_source = path;
  data.sparse_feat = std::move(rows);
}

// feat.npy (or a SciPy sparse feat.npz), label.npy and orig_id.npy where DIR has them, each
// agreeing on the node count; feature values that are not finite are an error or replaced by
// `nan_as`.
void read_node_arrays(const std::string& dir, std::optional<float> nan_as, NodeCount& count, GraphData& data) {
  const std::string feat = dir + "/feat.npy", label = dir + "/label.npy", orig_id = dir + "/orig_id.npy";
  const std::string sparse_feat = dir + "/feat.npz";
  if (fs::is_regular_file(sparse_feat)) {
    if (fs::is_regular_file(feat))
      throw Error::in_argument("SRC", "'" + dir + "' holds both feat.npy and feat.npz; keep one");
    NonFinitePolicy non_finite{nan_as};
    read_sparse_features(sparse_feat, non_finite, count, data);
    if (nan_as) data.provenance["non_finite"] = non_finite.to_json();
  } else if (fs::is_regular_file(feat)) {
    const auto a = format::NpyArray::map(feat);
    if (a.ndim() != 2 || !format::is_floating(a.dtype()))
      throw Error::in_file(
          a.path(), 0,
          fmt::format("expected a 2-D float array, found {}-D {}", a.ndim(), format::dtype_name(a.dtype())));
    count.agree(a.rows(), a.path());
    data.feat = format::read_npy_as<float>(a.path());
    data.feat_source = a.path();
    data.feat_dim = a.cols();
    NonFinitePolicy non_finite{nan_as};
    enforce_finite(data.feat, data.feat_dim, a.path(), "feature", non_finite);
    if (nan_as) data.provenance["non_finite"] = non_finite.to_json();
  }
  if (fs::is_regular_file(label)) read_labels(label, count, data);
  if (fs::is_regular_file(orig_id)) {
    data.orig_id = read_int_vector(orig_id);
    count.agree(static_cast<std::int64_t>(data.orig_id.size()), orig_id);
    data.id_map_note = "original ids from orig_id.npy";
  } else {
    data.id_map_note = "ids used as given";
  }
}

// train_idx.npy, valid_idx.npy (or PyG's val_idx.npy) and test_idx.npy, ids checked against n.
void read_split_arrays(const std::string& dir, std::int64_t n, const NodeCount& count, GraphData& data) {
  auto has = [&](const char* name) { return fs::is_regular_file(dir + "/" + name); };
  if (has("valid_idx.npy") && has("val_idx.npy"))
    throw Error::in_argument("SRC",
                             "'" + dir + "' holds both valid_idx.npy and val_idx.npy (PyG's name for it); keep one");
  for (const auto& [name, files] : {std::pair<const char*, std::array<const char*, 2>>{"train", {"train_idx.npy", ""}},
                                    {"valid", {"valid_idx.npy", "val_idx.npy"}},
                                    {"test", {"test_idx.npy", ""}}}) {
    for (const char* split_file : files) {
      if (!*split_file || !has(split_file)) continue;
      const std::string path = dir + "/" + split_file;
      auto ids = read_int_vector(path);
      check_ids(path, ids, n, count.from);
      data.splits[name] = std::move(ids);
    }
  }
}

}  // namespace

ImportedGraph read_npy(const NpyImportOptions& o) {
  require_source(o.dir, "SRC", /*directory=*/true);
  NodeCount count;
  if (o.num_nodes >= 0) {
    LOOM_CHECK_ARG(o.num_nodes > 0, "--num-nodes", "must be positive");
    check_node_memory(o.num_nodes);
    count.agree(o.num_nodes, "--num-nodes");
  }
  EdgeArrays edges = open_edge_arrays(o, count);
  ImportedGraph g;
  g.policy = o.policy;
  GraphData& data = g.nodes;
  read_node_arrays(o.dir, o.nan_as, count, data);
  if (count.value < 0) {
    const std::int64_t largest = std::max(check_id_array(edges.first, -1, ""), check_id_array(edges.second, -1, ""));
    count.agree(largest + 1, "the largest edge id + 1");
  }
  const std::int64_t n = count.value;
  if (!edges.csr) check_id_array(edges.first, n, count.from);
  check_id_array(edges.second, n, count.from);
  data.rows_without_csr = n;
  read_split_arrays(o.dir, n, count, data);
  warn_unread_arrays(o.dir);
  data.provenance["importer"] = "npy";
  data.provenance["source"] = fs::absolute(o.dir).lexically_normal().string();
  data.provenance["options"] = {{"edges_from", edges.csr ? "indptr/indices" : "src/dst"}, {"num_nodes", o.num_nodes}};
  data.provenance["counts"]["nodes"] = n;
  g.edges =
      std::make_unique<NpyEdges>(edges.first, edges.second, edges.csr, n, map_edge_weights(o.dir, edges.second.size()));
  return g;
}

GraphData import_npy(const NpyImportOptions& o) { return assemble_in_memory(read_npy(o)); }

std::unique_ptr<EdgeStream> mapped_edge_index(const format::NpyArray& edge_index, std::int64_t num_nodes) {
  if (edge_index.ndim() != 2 || edge_index.rows() != 2 || !is_integer(edge_index.dtype()))
    throw Error::in_file(edge_index.path(), 0,
                         fmt::format("expected an integer array of shape [2, edges], found {}-D {} with {} rows",
                                     edge_index.ndim(), format::dtype_name(edge_index.dtype()), edge_index.rows()));
  if (edge_index.cols() == 0) throw Error::in_file(edge_index.path(), 0, "no edges (empty array)");
  const format::NpyArray sources = edge_index.slice(0, 1), targets = edge_index.slice(1, 2);
  check_id_array(sources, num_nodes, "the node count");
  check_id_array(targets, num_nodes, "the node count");
  return std::make_unique<NpyEdges>(sources, targets, /*csr=*/false, num_nodes);
}

}  // namespace loom::graph::io
