// partition_store(): the library entry point behind `loom partition`. Opens a graph store,
// assigns parts with the named partitioner, relabels so each part owns a contiguous global id
// range, and writes the partitioned store (layout in partitioned_store.hpp) atomically: the
// output appears whole at `output` or not at all. Memory: the source is mapped, not loaded; the
// topology is written a chunk of rows at a time (memory_bytes of entries), then each part: its
// feature rows copied a chunk at a time in the source's dtype, its labels, splits and halo. A
// part holds no CSR: its rows are its range of the topology (meta.rows_from), so the partitioned
// store costs about the topology plus the features (or the topology alone with map_features).
// Beyond that, O(nodes) memory.
// Bad input throws Error before any long work: unknown method (--method), source not a graph
// store, k outside [1, nodes] (-k), output existing without overwrite or unwritable (-o).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "loom/graph/csr_writer.hpp"
#include "loom/partition/partitioned_store.hpp"
#include "loom/partition/partitioner.hpp"

namespace loom::partition {

struct PartitionOptions {
  std::string source;  // a graph store directory
  std::string output;  // the partitioned store to write
  std::int64_t num_parts = 2;
  PartitionMethod method = PartitionMethod::kMetis;
  std::uint64_t seed = 0;
  bool overwrite = false;
  int stream_passes = kDefaultStreamPasses;                   // --method stream
  std::int64_t memory_bytes = graph::default_build_memory();  // for the topology's rows in flight
  // Parts copy their feature rows (self-contained), or map them from the source store through
  // new_to_source.npy (no second copy on disk; the source must stay where it is).
  bool map_features = false;
};

// Part ids for the source's nodes, in place of the named partitioner (a distributed run passes its
// own: comm/ptscotch_partition.hpp). Called once the source, k and the output are checked.
using AssignParts = std::function<std::vector<std::int32_t>(const graph::GraphStore& source, int num_parts)>;

// Returns the meta written (book, counts, quality).
PartitionedMeta partition_store(const PartitionOptions& options, const AssignParts& assign = {});

}  // namespace loom::partition
