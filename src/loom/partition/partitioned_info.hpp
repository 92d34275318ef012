// The `loom info` summary of a partitioned store, as JSON: the whole graph's description
// (graph::describe, the keys a graph store's summary has), method, seed and source, the partition
// book, edge cut and balance, and a per-part table (global id range, nodes, stored edges,
// training nodes, halo size, bytes on disk) read from the parts themselves. Its text is
// graph::format_store_summary, the one printer for both kinds of store.
#pragma once

#include <nlohmann/json.hpp>

#include "loom/partition/partitioned_store.hpp"

namespace loom::partition {

nlohmann::json partitioned_summary(const PartitionedStore& store);

}  // namespace loom::partition
