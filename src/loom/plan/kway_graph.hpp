// The K-way split of a graph that a plan counts its work on, from the best source at hand:
//   - a partitioned store of exactly K parts: its own parts, ids and training ids (the counts are
//     then those `mpirun -np K loom train` meets, exactly);
//   - any other store (plain, or partitioned another way): its whole topology split K ways by the
//     partitioner `loom partition --method` would use (METIS unless asked), relabelled so that
//     part k owns a range;
//   - no store, only a shape (nodes, edges, training nodes): a stand-in R-MAT graph of at most
//     2^stand_in_scale nodes with the shape's average degree and training fraction, split K ways
//     the same way; each of its steps stands for `scale` times as many rows and edges (the plan's
//     batch is cut by that factor, so a batch covers the same share of the graph).
// `origin` says which, in words a user reads beside the results.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "loom/core/fs.hpp"
#include "loom/graph/csr.hpp"
#include "loom/graph/store.hpp"
#include "loom/partition/partition_book.hpp"
#include "loom/partition/partitioner.hpp"

namespace loom::plan {

// A graph's size, for graphs not at hand (`loom plan --shape`).
struct GraphShape {
  std::int64_t nodes = 0;
  std::int64_t edges = 0;        // stored (directed) edges: each undirected edge counts twice
  std::int64_t train_nodes = 0;  // seeds of an epoch, all hosts together
  std::int64_t feat_dim = 0;
  std::int64_t classes = 2;     // the model's output width
  std::int64_t feat_bytes = 4;  // a feature value as stored (feat-dtype float32 or float16)
  int stand_in_scale = 20;      // the stand-in's log2 nodes at most
  // The stand-in's R-MAT quadrant probabilities (d = 1 - a - b - c): Graph500's by default; a
  // = b = c = 0.25 is a graph without skew (Erdos-Renyi), a larger a a more skewed one.
  double rmat_a = 0.57, rmat_b = 0.19, rmat_c = 0.19;
};

// "nodes=111M,edges=3.2G,train=1.2M,feat-dim=128[,classes=172][,feat-dtype=float16][,rmat-a=0.57,
// rmat-b=0.19,rmat-c=0.19]" (suffixes K, M, G: powers of 1000); throws Error naming --shape.
GraphShape parse_shape(const std::string& text);

// What a plan keeps of a split once its work is counted: all that pricing the work needs.
struct SplitSummary {
  partition::PartitionBook book;
  std::vector<std::int64_t> halo_sizes;  // per part: distinct remote neighbours
  double scale = 1;                      // as KWayGraph's
  std::string origin;
  int parts() const { return book.num_parts(); }
};

struct KWayGraph {
  graph::Csr csr;  // the whole graph, ids in part order (part k owns book.range(k))
  partition::PartitionBook book;
  std::vector<std::vector<std::int64_t>> train_ids;  // per part, global ids
  std::vector<std::int64_t> halo_sizes;              // per part: distinct remote neighbours
  double scale = 1;    // rows and edges each counted row or edge stands for (stand-ins only)
  std::string origin;  // where the split comes from, for the report
  int parts() const { return book.num_parts(); }
  SplitSummary summary() const { return {book, halo_sizes, scale, origin}; }
};

// From a store (plain or partitioned); `method` and `seed` are the partitioner's where the store
// is split here.
KWayGraph kway_from_store(const std::string& store, int parts, partition::PartitionMethod method, std::uint64_t seed);
// A stand-in for a shape (see above), generated once into a temporary folder and split for each
// K; `batch_size` is the plan's, the stand-in's batch is batch_size / scale (at least 1), and each
// split's `scale` is their exact ratio.
// The stand-in's batch for a plan's `batch_size`: cut by the ratio of the shape's nodes to the
// stand-in's, at least 1.
std::int64_t stand_in_batch(const GraphShape& shape, std::int64_t batch_size);
class StandIn {
 public:
  StandIn(const GraphShape& shape, std::int64_t batch_size, std::uint64_t seed);
  KWayGraph split(int parts, partition::PartitionMethod method, std::uint64_t seed) const;

 private:
  core::TempDir dir_;
  graph::GraphStore store_;
  std::vector<std::int64_t> train_;
  std::int64_t batch_size_ = 0;
  double scale_ = 1;
  std::string description_;
};

}  // namespace loom::plan
