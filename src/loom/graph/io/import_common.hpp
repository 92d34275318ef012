// Pieces every importer shares: the edge policy (direction, duplicates, self-loops), the imported
// graph (its nodes in memory, its edges a stream), writing it as a store with the CSR built out
// of core (or assembling it in memory), and finding an input file that may be gzip-compressed.
// Importers validate their own input (naming file and line); these helpers only assemble.
#pragma once

#include <memory>
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

// An imported graph: `nodes` holds everything but the CSR (nodes.rows_without_csr rows:
// features, labels, splits, ids, provenance), `edges` the edges to build it from.
struct ImportedGraph {
  GraphData nodes;
  std::unique_ptr<EdgeStream> edges;
  EdgePolicy policy;
};

// Writes `g` as a store into `dir` (an OutputDir's temporary folder): the CSR out of core within
// memory_bytes (csr_writer.hpp), then the node arrays and meta.json. Records in
// provenance["counts"]: input_edges, self_loops_removed, duplicate_entries_removed (stored
// entries; both directions count when symmetric), stored_edges, and for a symmetric graph
// undirected_edges; and provenance["edge_policy"].
void write_imported_store(ImportedGraph& g, const std::string& dir, core::DType feat_dtype, std::int64_t memory_bytes);
// The same graph with its CSR built in memory (for small graphs and tests).
GraphData assemble_in_memory(ImportedGraph g);

// "<dir>/<stem>.gz" if it exists, else "<dir>/<stem>" if it exists, else "" (stem: "edge.csv").
std::string find_maybe_gz(const std::string& dir, const std::string& stem);

// A warning when the labels of `d` (read from `path`) use fewer than half of its classes: the class
// count is the largest label + 1, so one stray label (999) makes a thousand mostly empty classes.
void warn_if_classes_mostly_empty(const GraphData& d, const std::string& path);

// Throws Error naming `argument` unless `path` exists (a missing source).
void require_source(const std::string& path, const std::string& argument, bool directory);

}  // namespace loom::graph::io
