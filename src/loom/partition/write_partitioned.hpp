// partition_store(): the library entry point behind `loom partition`. Opens a graph store,
// assigns parts with the named partitioner, relabels so each part owns a contiguous global id
// range, and writes the partitioned store (layout in partitioned_store.hpp) atomically: the
// output appears whole at `output` or not at all. Memory: the source is mapped, not loaded;
// the whole-graph topology is built and written first, then parts one at a time, so at most one
// part's features are in memory besides the page cache.
// Bad input throws Error before any long work: unknown method (--method), source not a graph
// store, k outside [1, nodes] (-k), output existing without overwrite or unwritable (-o).
#pragma once

#include <cstdint>
#include <string>

#include "loom/partition/partitioned_store.hpp"
#include "loom/partition/partitioner.hpp"

namespace loom::partition {

struct PartitionOptions {
  std::string source;  // a graph store directory
  std::string output;  // the partitioned store to write
  std::int64_t num_parts = 2;
  std::string method = "metis";
  std::uint64_t seed = 0;
  bool overwrite = false;
  int stream_passes = kDefaultStreamPasses;  // --method stream
};

// Returns the meta written (book, counts, quality).
PartitionedMeta partition_store(const PartitionOptions& options);

}  // namespace loom::partition
