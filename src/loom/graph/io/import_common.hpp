// Pieces every importer shares: the edge policy (direction, duplicates, self-loops), turning a
// parsed EdgeList into the CSR part of a GraphData with the removal counts recorded in its
// provenance, and finding an input file that may be gzip-compressed or plain.
// Importers validate their own input (naming file and line); these helpers only assemble.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "loom/graph/build_csr.hpp"
#include "loom/graph/store.hpp"

namespace loom::graph::io {

struct EdgePolicy {
  bool directed = false;  // false: store both directions of every edge
  DuplicatePolicy duplicates = DuplicatePolicy::kRemove;
  SelfLoopPolicy self_loops = SelfLoopPolicy::kRemove;
};

// The policy as JSON for provenance ({"directed":..,"duplicates":"remove",..}).
nlohmann::json policy_json(const EdgePolicy& policy);

// Builds the CSR of `edges` (consumed) into data.indptr/indices/edge_weight, sets data.directed,
// and records in data.provenance["counts"]: input_edges, self_loops_removed,
// duplicate_entries_removed (stored entries; both directions count when symmetric),
// stored_edges, and for a symmetric graph undirected_edges.
void assemble_edges(EdgeList& edges, const EdgePolicy& policy, GraphData& data);

// "<dir>/<stem>.gz" if it exists, else "<dir>/<stem>" if it exists, else "" (stem: "edge.csv").
std::string find_maybe_gz(const std::string& dir, const std::string& stem);

// Throws Error naming `argument` unless `path` exists (a missing source).
void require_source(const std::string& path, const std::string& argument, bool directory);

}  // namespace loom::graph::io
