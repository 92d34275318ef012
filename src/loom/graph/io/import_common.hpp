// Pieces every importer shares: the edge policy (direction, duplicates, self-loops), the imported
// graph (its nodes in memory, its edges a stream), writing it as a store with the CSR built out
// of core (or assembling it in memory), and finding an input file that may be gzip-compressed.
// Importers validate their own input (naming file and line); these helpers only assemble.
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <string>

#include <nlohmann/json.hpp>

#include "loom/graph/build_csr.hpp"
#include "loom/graph/csr_writer.hpp"
#include "loom/graph/store.hpp"

namespace loom::graph::io {

struct EdgePolicy {
  bool directed = false;  // false: store both directions of every edge
  DuplicatePolicy duplicates = DuplicatePolicy::kRemove;
  SelfLoopPolicy self_loops = SelfLoopPolicy::kRemove;
};

// The policy as JSON for provenance ({"directed":..,"duplicates":"remove",..}).
nlohmann::json policy_json(const EdgePolicy& policy);

// Features too large to hold: written into the store as they are read (write(dir, dtype) writes
// dir/feat.npy and returns provenance of the values it replaced, or null), or left where they are
// (mapped_from: the store maps that .npy, meta.feat_from, in its own dtype mapped_dtype).
struct StreamedFeatures {
  std::int64_t dim = 0;  // 0: none
  std::function<nlohmann::json(const std::string& dir, format::DType dtype)> write;
  std::string mapped_from;
  format::DType mapped_dtype = format::DType::kFloat32;
  // The mapped file's digest, which write() sets as it reads the file to check it.
  std::shared_ptr<std::string> mapped_digest = std::make_shared<std::string>();
};

// An imported graph: `nodes` holds everything but the CSR (nodes.rows_without_csr rows:
// features, labels, splits, ids, provenance), `edges` the edges to build it from, and
// `streamed_features` the features where nodes.feat does not hold them.
struct ImportedGraph {
  GraphData nodes;
  std::unique_ptr<EdgeStream> edges;
  EdgePolicy policy;
  StreamedFeatures streamed_features;
};

// Writes `g` as a store into `dir` (an OutputDir's temporary folder): the CSR out of core within
// memory_bytes (csr_writer.hpp), then the node arrays and meta.json. Records in
// provenance["counts"]: input_edges, self_loops_removed, duplicate_entries_removed (stored
// entries; both directions count when symmetric), stored_edges, and for a symmetric graph
// undirected_edges; and provenance["edge_policy"].
void write_imported_store(ImportedGraph& g, const std::string& dir, format::DType feat_dtype,
                          std::int64_t memory_bytes);
// The same graph with its CSR built in memory (for small graphs and tests).
GraphData assemble_in_memory(ImportedGraph g);

// Labels from `values` (read from `path`): one per row, a class id (NaN or -1: unlabelled), or
// with cols > 1 a 0/1 matrix of rows x cols (multi-label). A value that is neither throws Error
// naming the file and entry.
void set_labels(std::span<const double> values, std::int64_t cols, const std::string& path, GraphData& data);

// Removes from each split of `data` (single-label) the nodes without a label, naming how many in
// a log line with `source` (MAG240M's test-dev labels are not public); a split left empty is
// kept empty.
void keep_labelled_split_ids(GraphData& data, const std::string& source);

// "<dir>/<stem>.gz" or "<dir>/<stem>", whichever exists, else "" (stem: "edge.csv"); Error naming
// both when both exist (they may differ, and reading one silently would hide the other).
std::string find_maybe_gz(const std::string& dir, const std::string& stem);

// A warning when the labels of `d` (read from `path`) use fewer than half of its classes: the class
// count is the largest label + 1, so one stray label (999) makes a thousand mostly empty classes.
void warn_if_classes_mostly_empty(const GraphData& d, const std::string& path);

// Throws Error naming --num-nodes when `num_nodes` nodes' arrays (row counts, offsets, ids: about
// 24 bytes a node, held while the CSR is built) exceed the memory available.
void check_node_memory(std::int64_t num_nodes);

// Throws Error naming `argument` unless `path` exists (a missing source).
void require_source(const std::string& path, const std::string& argument, bool directory);

}  // namespace loom::graph::io
