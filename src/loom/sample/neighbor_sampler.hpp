// NeighborSampler: node-wise neighbour sampling without replacement over a CSR whose rows and
// columns are the same global id space (a whole graph, or a partitioned store's replicated
// topology). Each hop takes every neighbour of a node whose degree is <= the fanout, otherwise
// `fanout` distinct neighbours uniformly at random (Floyd's algorithm; partial Fisher-Yates on a
// scratch buffer for large fanouts); fanout -1 takes all neighbours. fanouts[0] is the hop from
// the seeds (PyG order: "15,10,5" samples 15 neighbours of each seed), so it feeds the LAST block.
// Output depends only on (graph, fanouts, seeds, seed): each destination node's draw is seeded by
// its position in its layer (Rng(seed).split(hop, position)), rows are filled in parallel into
// slices fixed by a prefix sum, and local ids are assigned serially in edge order, so the batch is
// identical at any thread count. Each hop runs in passes that ask for what they will read a few
// steps ahead (the CSR offsets of the next destinations, the neighbour ids just drawn, the id map's
// slots), so many cache misses are in flight at once rather than one at a time. sample() is const
// and may run concurrently on several threads; each calling thread keeps its scratch from batch to
// batch (the id map's table: 8 bytes per node where batches cover a good share of the graph, on
// huge pages). The sampler keeps a reference to the Csr, which must outlive it.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "loom/graph/csr.hpp"
#include "loom/sample/block.hpp"
#include "loom/sample/fanouts.hpp"

namespace loom::sample {

class NeighborSampler {
 public:
  // The one way a sampler is made: one layer per fanout (Fanouts::all_neighbours for exact
  // inference). Throws loom::Error naming "graph" when the graph is not square.
  NeighborSampler(const graph::Csr& graph, Fanouts fanouts);

  // Samples the blocks for `seeds` (distinct global ids in [0, num_nodes)); throws loom::Error
  // naming "seeds" otherwise. `seed` selects the random streams: derive it per (epoch, batch),
  // e.g. with batch_seed().
  SampledBatch sample(std::span<const std::int64_t> seeds, std::uint64_t seed) const;

  int num_layers() const { return static_cast<int>(fanouts_.size()); }
  const Fanouts& fanouts() const { return fanouts_; }
  const graph::Csr& graph() const { return *graph_; }

  // Whether each hop reads its frontier's neighbour lists in CSR order (ascending node id) rather
  // than batch order: set where the topology is larger than half the memory available at
  // construction. Each hop then asks the kernel for exactly the frontier's lists first, in
  // ascending order and all at once (core::will_need; fault readahead on the mapped lists is off),
  // instead of reading at random, in windows of about `window_bytes` of reads. The batches are the
  // same either way.
  static constexpr std::int64_t kReadWindowBytes = std::int64_t{64} << 20;
  bool reads_in_csr_order() const { return csr_order_; }
  void set_reads_in_csr_order(bool on, std::int64_t window_bytes = kReadWindowBytes) {
    csr_order_ = on;
    read_window_bytes_ = window_bytes;
  }

 private:
  const graph::Csr* graph_;
  Fanouts fanouts_;
  bool csr_order_ = false;
  std::int64_t read_window_bytes_ = kReadWindowBytes;
};

// The sampling seed of batch `batch` of epoch `epoch` under a run's base seed.
std::uint64_t batch_seed(std::uint64_t run_seed, std::int64_t epoch, std::int64_t batch);

}  // namespace loom::sample
