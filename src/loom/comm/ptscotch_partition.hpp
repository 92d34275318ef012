// `loom partition --method ptscotch`: PT-Scotch, the Scotch project's distributed multilevel
// partitioner, over a Communicator, for graphs whose METIS adjacency does not fit one process.
// Run under `mpirun -np P` (one process is a world of size 1 and works too). Each rank reads only
// its slice of the store's rows (a contiguous range holding about 1/P of nodes plus stored
// edges), makes it symmetric without self-loops (in a directed store the reverse edges travel to
// their rows' ranks on Channel::partition), and SCOTCH_dgraphPart splits the distributed graph
// with one vertex weight that blends the three balance constraints (nodes, stored degree,
// training nodes; 5% imbalance) by its SPEED mapping strategy (on the products-scale SBM, K=8,
// 2 ranks: 370 s against QUALITY's 609 s for the same cut, 19.1%). Rank 0 gathers the part ids (Channel::partition),
// rebalance() (partition/balance.hpp) brings each constraint within its cap, and rank 0 writes the same partitioned
// store `loom partition` writes. PT-Scotch's own messages stay inside its library and are not counted. Same store, K,
// seed and P give the same parts. Errors reach every rank together (Communicator::agree): a rank count the graph cannot
// split (more ranks than nodes), ranks that see different stores, a source or output error on rank 0, or Loom built
// without PT-Scotch (Debian: libptscotch-dev).
#pragma once

#include <cstdint>
#include <vector>

#include "loom/comm/communicator.hpp"
#include "loom/graph/store.hpp"
#include "loom/partition/write_partitioned.hpp"

namespace loom::comm {

// Whether this build links PT-Scotch.
bool ptscotch_available();

// Collective. Part ids for every node of `store` on rank 0 (empty on the others), before
// rebalancing. Every rank passes the same store, num_parts and seed.
std::vector<std::int32_t> ptscotch_parts(const Communicator& world, const graph::GraphStore& store, int num_parts,
                                         std::uint64_t seed);

// Collective: the whole partitioning; rank 0 writes options.output and returns its meta (the
// other ranks return an empty meta once it is written).
partition::PartitionedMeta partition_store_ptscotch(const Communicator& world,
                                                    const partition::PartitionOptions& options);

}  // namespace loom::comm
