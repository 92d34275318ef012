// The graph store: a directory that every Loom command reads and that importers, generators
// and the partitioner write. Layout (all arrays .npy, NumPy-readable with mmap_mode='r'):
//   meta.json                 counts, dtypes, classes, splits, id map, provenance (StoreMeta)
//   indptr.npy  int64 [rows+1]   indices.npy int32|int64 [edges]   weight.npy float32 (optional)
//   feat.npy    float32|float16 [rows, feat_dim]                  (optional; dense layout)
//   feat_indptr.npy / feat_indices.npy / feat_values.npy  the same rows as CSR (sparse layout:
//               sparse_features.hpp)
//   label.npy   int64 [rows] (class id, -1 = unlabeled) or uint8 [rows, classes] (multi-label)
//   train_idx.npy / valid_idx.npy / test_idx.npy   int64 row ids (optional)
//   orig_id.npy int64 [rows] original ids, or names.txt (one original string id per row)
// A partition's store (part-<k>/ of a partitioned store) has the same layout; its rows are the
// part's own nodes, its indices global ids, and meta.partition says which range it owns. A part
// written with meta.rows_from holds no indptr/indices/weight: its rows are that range of the
// partitioned store's topology, mapped from there (so a partitioned store holds each row once).
// meta.json also records every file's digest (format/digest.hpp) for `loom check`.
// GraphStore::open maps the arrays; nothing is copied; it checks the ranges commands rely on
// (store_check.hpp).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "loom/format/digest.hpp"
#include "loom/core/enum_names.hpp"
#include "loom/format/npy.hpp"
#include "loom/graph/csr.hpp"
#include "loom/graph/sparse_features.hpp"

namespace loom::graph {

enum class IdMapKind { kIdentity, kOrigId, kNames };
inline constexpr core::EnumNames<IdMapKind, 3> kIdMapNames{
    {{"identity", IdMapKind::kIdentity}, {"orig_id", IdMapKind::kOrigId}, {"names", IdMapKind::kNames}}};
inline std::string id_map_name(IdMapKind kind) { return core::enum_name(kIdMapNames, kind); }
// The id map a meta.json names (kIdMapNames); Error naming `path` otherwise.
IdMapKind parse_id_map(const std::string& text, const std::string& path);

struct PartitionInfo {
  int part = 0;
  int num_parts = 1;
  std::int64_t node_offset = 0;       // global id of local row 0
  std::int64_t global_num_nodes = 0;  // size of the global id space of `indices`
};

// The two kinds of store, by the "format" their meta.json declares.
enum class StoreKind { kGraph, kPartitioned };
inline constexpr core::EnumNames<StoreKind, 2> kStoreKindNames{
    {{"loom-graph", StoreKind::kGraph}, {"loom-partitioned", StoreKind::kPartitioned}}};
// The kind a meta.json declares, or nullopt when it declares no known one (or is not an object).
std::optional<StoreKind> declared_store_kind(const nlohmann::json& meta);

// What both kinds of store say about their graph, under the same meta.json keys: a graph store's
// StoreMeta is one; a partitioned store's meta holds one for the whole graph.
struct GraphDescription {
  std::int64_t num_nodes = 0;  // rows of this store (of the whole graph, for a partitioned store)
  std::int64_t num_edges = 0;  // stored (directed) CSR entries
  bool directed = false;       // false: every edge is stored in both directions
  bool weighted = false;
  std::int64_t feat_dim = 0;  // 0 = no features
  format::DType feat_dtype = format::DType::kFloat32;
  FeatureLayout feat_layout = FeatureLayout::kDense;  // meta.json "feat_layout" (written where sparse)
  std::int64_t feat_nnz = 0;                          // the sparse layout's stored entries
  std::int64_t num_classes = 0;                       // 0 = no labels
  bool multi_label = false;
  std::map<std::string, std::int64_t> splits;  // "train" -> size, ... (partitioned: totals over parts)
  IdMapKind id_map = IdMapKind::kIdentity;
  std::string id_map_note;  // how ids were mapped, in words (shown by `loom info`)

  // The keys above (num_nodes ... id_map_note); the store's meta adds its own to them.
  nlohmann::json to_json() const;
  // Reads those keys (absent: weighted false, feat_dtype float32, id_map identity, no note);
  // throws Error naming `path` when one is malformed.
  static GraphDescription from_json(const nlohmann::json& j, const std::string& path);
};

struct StoreMeta : GraphDescription {
  std::optional<PartitionInfo> partition;
  // A part that holds no CSR of its own: its rows are rows [node_offset, node_offset + num_nodes)
  // of the store at this path (relative to the part's folder), e.g. "../topology".
  std::string rows_from;
  // A part whose features stay in its source store: feature row r is row feat_index[node_offset
  // + r] of the feat.npy at feat_from (an absolute path); feat_index names an int64 array
  // relative to the part's folder ("../new_to_source.npy"). A whole store with feat_from and no
  // feat_index maps its feature rows, in order, from that file (`loom import mag240m --features map`).
  std::string feat_from, feat_index;
  // The digest of feat_from's file when it was written (meta.json "external_digests", which the
  // store's verification checks with its own files: format/digest.hpp).
  std::string feat_from_digest;
  nlohmann::json provenance = nlohmann::json::object();

  nlohmann::json to_json() const;
  static StoreMeta from_json(const nlohmann::json& j, const std::string& path);
};

// Everything needed to write a store, in memory.
struct GraphData {
  std::vector<std::int64_t> indptr, indices;
  std::vector<float> edge_weight;  // empty = unweighted
  std::int64_t num_cols = -1;      // id space of indices; -1 = rows (a whole graph)
  bool directed = false;
  std::vector<float> feat;  // rows * feat_dim, row-major
  std::int64_t feat_dim = 0;
  // The rows as sparse rows instead (then `feat` is empty): a sparse source read as it is (a
  // SciPy .npz matrix, a sparse PyG x), never widened unless stored dense.
  std::optional<SparseRows> sparse_feat;
  FeatureLayoutChoice feat_layout = FeatureLayoutChoice::kDense;  // how `feat` is stored (--feature-layout)
  std::string feat_source;                // the file `feat` was read from, for messages ("" = unknown)
  std::vector<std::int64_t> label;        // single-label: rows entries, -1 unlabeled
  std::vector<std::uint8_t> multi_label;  // multi-label: rows * num_classes 0/1
  std::int64_t num_classes = 0;
  std::map<std::string, std::vector<std::int64_t>> splits;  // "train" -> row ids
  std::vector<std::int64_t> orig_id;                        // empty = identity
  std::vector<std::string> names;                           // string ids (instead of orig_id)
  // Further per-node integer arrays kept beside the graph (OGB's node_year): written as
  // <name>.npy, rows entries each, and named in provenance["node_arrays"].
  std::map<std::string, std::vector<std::int64_t>> node_arrays;
  std::string id_map_note;
  std::optional<PartitionInfo> partition;
  nlohmann::json provenance = nlohmann::json::object();
  // The rows of a GraphData that holds no CSR (an import whose edges are written out of core).
  std::int64_t rows_without_csr = 0;

  std::int64_t num_rows() const {
    return indptr.empty() ? rows_without_csr : static_cast<std::int64_t>(indptr.size()) - 1;
  }
};

struct StoreWriteOptions {
  format::DType feat_dtype = format::DType::kFloat32;  // or kFloat16
  bool overwrite = false;
  // Memory an out-of-core writer may use for its chunks (csr_writer.hpp), beyond O(nodes).
  std::int64_t memory_bytes = std::int64_t{1} << 30;    // (the CLI's default: default_build_memory())
  FeatureLayout words_layout = FeatureLayout::kSparse;  // generated bag-of-words rows (generate sbm --words)
};

// Checks sizes and ranges of `data` (labels vs rows, split ids, feature width, ids < num_cols,
// splits distinct and disjoint) and throws Error naming what is inconsistent.
void validate_graph_data(const GraphData& data);
// Throws Error naming `source` (where the splits were read) when an id repeats within a split of
// `data` or is in two of them (store_invariants.hpp's split_overlap).
void check_split_data(const GraphData& data, const std::string& source);

// Writes the store's files into an existing directory (the caller owns atomicity), then records
// the digest of every file in the directory (those written before it too) in meta.json.
void write_store_files(const GraphData& data, const std::string& dir, format::DType feat_dtype);
// Writes dir/meta.json and records the digest of every file in `dir` (the last step of a writer).
void finish_store(const std::string& dir, const StoreMeta& meta);
// The steps of write_store_files, for writers that stream some arrays themselves: the CSR
// (indptr, indices narrowed to int32 when the ids fit, weight); the per-node arrays but features
// (labels, splits, original ids or names; `rows` rows); and the meta that describes `d` with the
// given counts.
void write_csr_arrays(const GraphData& d, const std::string& dir);
void write_feature_array(const GraphData& d, const std::string& dir, format::DType feat_dtype);
// The layout write_feature_array() stores `d`'s features in (its feat_layout resolved).
FeatureLayout stored_feature_layout(const GraphData& d);
void write_node_arrays(const GraphData& d, const std::string& dir, std::int64_t rows);
StoreMeta store_meta(const GraphData& d, std::int64_t rows, std::int64_t edges, format::DType feat_dtype);
// Writes a whole store atomically: nothing is left at `dir` if anything fails.
void write_graph_store(const GraphData& data, const std::string& dir, const StoreWriteOptions& options);

class GraphStore {
 public:
  // `verify`: check meta.json's seal (format/digest.hpp; off with --no-verify).
  static GraphStore open(const std::string& dir, bool verify = format::digest_verification());

  const std::string& dir() const { return dir_; }
  const StoreMeta& meta() const { return meta_; }
  const Csr& csr() const { return csr_; }
  std::int64_t num_nodes() const { return meta_.num_nodes; }

  bool has_feat() const { return meta_.feat_dim > 0; }
  // The feature rows: feat() itself, or (a part written with --features map) row feat_index()[r]
  // of feat() for row r.
  const format::NpyArray& feat() const { return feat_; }
  const format::NpyArray& feat_index() const { return feat_index_; }
  // The sparse layout's rows (meta().feat_layout kSparse; feat() is then empty).
  const SparseFeatureArrays& sparse_feat() const { return sparse_feat_; }
  bool has_label() const { return meta_.num_classes > 0; }
  const format::NpyArray& label() const { return label_; }
  const format::NpyArray& edge_weight() const { return weight_; }

  bool has_split(const std::string& name) const { return splits_.count(name) > 0; }
  // Row ids of a split; throws Error naming the store when absent.
  std::span<const std::int64_t> split(const std::string& name) const;

  // Original id of each row (identity when the store has no map), or names for string ids.
  std::vector<std::int64_t> original_ids() const;
  std::vector<std::string> original_names() const;

 private:
  // The CSR of a part written with meta.rows_from: its range of the store at `from`.
  static void map_rows_from(GraphStore& g, const std::string& from, std::int64_t cols);
  // open()'s feature rows: feat.npy, or the imported file meta.json names (whole, or this part's
  // rows of it through its feature index).
  static void map_features(GraphStore& g, const std::string& dir);
  std::string dir_;
  StoreMeta meta_;
  Csr csr_;
  format::NpyArray feat_, feat_index_, label_, weight_;
  SparseFeatureArrays sparse_feat_;
  std::map<std::string, format::NpyArray> splits_;
};

}  // namespace loom::graph
