// Summaries of a graph store for `loom info`: counts, degree statistics, features, classes,
// splits, id mapping and bytes on disk, as JSON and as aligned text.
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

nlohmann::json store_summary(const GraphStore& store);
std::string format_store_summary(const nlohmann::json& summary);

// "format" field of DIR/meta.json ("loom-graph", "loom-partitioned"), or throws naming DIR.
std::string store_format(const std::string& dir);

// "12.3 MiB"
std::string human_bytes(double bytes);

}  // namespace loom::graph
