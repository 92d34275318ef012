// The ranges a graph store's arrays must keep for Loom to index with them: indptr starts at 0,
// never decreases and ends at the edge count; every neighbour id lies in the id space (global
// ids, in a part of a partitioned store); labels are -1 or a class (0 or 1 per label column when
// multi-label); split ids are rows. check_store_ranges() makes one parallel pass over them and
// throws Error naming the file and its first bad entry. GraphStore::open runs it, so a damaged
// store (a bad copy, a flipped bit) is an error before any command indexes with it, never a crash.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "loom/graph/store.hpp"

namespace loom::graph {

void check_store_ranges(const GraphStore& store);

// Every entry of `ids` (read from the file `path`, from `offset` on) in [begin, end), else Error
// naming the file, the entry and `what` the ids are ("row id", "neighbour id", ...).
void check_ids_in_range(std::span<const std::int64_t> ids, std::int64_t begin, std::int64_t end,
                        const std::string& path, const std::string& what, std::int64_t offset = 0);

}  // namespace loom::graph
