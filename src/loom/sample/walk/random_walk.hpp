// Random walks over a graph's CSR for DeepWalk (uniform next neighbour) and node2vec (second
// order, return parameter p, in-out parameter q). node2vec is sampled exactly without per-edge
// alias tables: a neighbour x of the current node v (previous node t) is proposed uniformly and
// accepted with probability w(x) / envelope, where w = 1/p for x == t, 1 for x adjacent to t,
// 1/q otherwise (membership by binary search in t's sorted row; rows must be sorted, which is
// checked), and a large 1/p is folded out of the envelope as in KnightKing. Memory is O(1) per walk
// beyond the output. Edge weights are ignored.
//
// Walks are numbered w = round * num_starts + slot; round r visits the start nodes in a random
// order seeded by (seed, r) (or in the given order when shuffle is off). The walk from start node s
// in round r draws from Rng(seed).split(r * num_nodes + s), so a walk's content depends only on
// (seed, r, s): not on the thread count, the chunking of generate() or which start-node subset
// (e.g. one rank's share) it belongs to.
//
// Output: a flat int32 array of num_walks rows by `length` columns (row w = walk w, its start node
// first). A walk that reaches a node with no out-neighbours stops there and the rest of its row is
// kNoNode (-1); in an undirected graph this happens only to walks from isolated nodes.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "loom/graph/csr.hpp"

namespace loom::sample::walk {

constexpr std::int32_t kNoNode = -1;

struct WalkOptions {
  std::int64_t walks_per_node = 10;  // rounds over the start nodes (>= 1)
  std::int64_t length = 80;          // nodes per walk, start included (>= 2)
  double p = 1.0;                    // return parameter (> 0); 1/p weighs stepping back
  double q = 1.0;                    // in-out parameter (> 0); 1/q weighs moving away
  std::uint64_t seed = 1;
  bool shuffle = true;  // each round visits the start nodes in a seeded random order

  // p == q == 1 is the uniform (DeepWalk) walk; anything else needs the second-order sampler.
  bool second_order() const { return p != 1.0 || q != 1.0; }
};

// Checks the options, naming the offending argument ("--length", "--p", ...): throws
// Error::in_argument for walks_per_node < 1, length < 1, p or q not finite and > 0.
void check_walk_options(const WalkOptions& options);

class WalkGenerator {
 public:
  // `csr` must be square (rows == cols), have fewer than 2^31 rows and, for a second-order walk,
  // sorted rows; start_nodes (empty = every row) must be valid rows. The csr is referenced, not
  // copied: it must outlive the generator.
  WalkGenerator(const graph::Csr& csr, const WalkOptions& options, std::vector<std::int64_t> start_nodes = {});

  std::int64_t num_walks() const { return options_.walks_per_node * static_cast<std::int64_t>(starts_.size()); }
  std::int64_t length() const { return options_.length; }
  const WalkOptions& options() const { return options_; }
  // Start node of walk w.
  std::int64_t start_of(std::int64_t w) const;

  // Writes walks [first, first + count) into out (count * length entries) in parallel and returns
  // the number of steps taken (transitions, i.e. nodes written minus count).
  std::int64_t generate(std::int64_t first, std::int64_t count, std::span<std::int32_t> out) const;

 private:
  const graph::Csr& csr_;
  WalkOptions options_;
  std::vector<std::int64_t> starts_;
  std::vector<std::int32_t> order_;  // per round, a permutation of slots (empty when not shuffling)
};

struct Walks {
  std::vector<std::int32_t> nodes;  // num_walks * length, kNoNode after a dead end
  std::int64_t num_walks = 0;
  std::int64_t length = 0;
  std::int64_t steps = 0;  // transitions taken
  double seconds = 0;      // wall time of the generation
  double steps_per_second() const { return seconds > 0 ? static_cast<double>(steps) / seconds : 0.0; }
};

// All walks of `options` from `start_nodes` (empty = every node), generated in parallel.
Walks generate_walks(const graph::Csr& csr, const WalkOptions& options, std::vector<std::int64_t> start_nodes = {});

// Removes the kNoNode padding from walks.nodes in place (rows become variable-length runs) and
// returns the num_walks + 1 offsets delimiting them (walk w = nodes[offsets[w], offsets[w+1])), the
// layout of embed::Corpus / embed::encode_sequences.
std::vector<std::int64_t> compact_walks(Walks& walks);

}  // namespace loom::sample::walk
