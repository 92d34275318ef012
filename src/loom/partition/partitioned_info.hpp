// Summaries of a partitioned store for `loom info`: the global counts, how ids were mapped,
// the edge cut and balance, and a per-part table (global id range, nodes, stored edges,
// training nodes, halo size, bytes on disk) read from the parts themselves. As JSON and as text.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "loom/partition/partitioned_store.hpp"

namespace loom::partition {

nlohmann::json partitioned_summary(const PartitionedStore& store);
std::string format_partitioned_summary(const nlohmann::json& summary);

}  // namespace loom::partition
