// Summaries of a store for `loom info`, as JSON and as aligned text, for both kinds of store: the
// graph's description (counts, features, classes, splits, id mapping) the same way for each; a
// graph store adds degree statistics, index width, part and provenance, a partitioned store
// (partition/partitioned_info.hpp) its method, edge cut, balance and per-part table; both add
// their bytes on disk.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "loom/graph/store.hpp"

namespace loom::graph {

struct DegreeStats {
  std::int64_t min = 0, max = 0, median = 0, p99 = 0, isolated = 0;
  double mean = 0;
};
DegreeStats degree_stats(const Csr& csr);

// The summary keys of a description: nodes, stored_edges, directed, undirected_edges_approx (when
// undirected), weighted, features, classes, multi_label, splits, id_map, id_map_note.
nlohmann::json describe(const GraphDescription& description);
nlohmann::json store_summary(const GraphStore& store);
// The text of either kind's summary (store_summary or partition::partitioned_summary).
std::string format_store_summary(const nlohmann::json& summary);

// The kind of store at DIR, by its meta.json's "format"; throws Error naming DIR when it has no
// meta.json, or naming the file when it is not JSON or declares another format.
StoreKind store_kind(const std::string& dir);

}  // namespace loom::graph
