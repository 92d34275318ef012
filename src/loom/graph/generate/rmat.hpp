// `loom generate rmat`: Graph500-style R-MAT graphs. Each of edge_factor * 2^scale edges picks
// one quadrant per level with probabilities a, b, c, d = 1 - a - b - c; vertex ids are then
// permuted by a seeded shuffle (breaking the locality of R-MAT ids) and the graph is stored
// symmetric with duplicates and self-loops removed. Optional N(0, 1) features and labels: the
// label of a vertex is the top bits of its R-MAT id (floor(id * classes / 2^scale)), which
// follows degree (low ids are hubs), with seeded random train/valid/test splits. Edges are
// generated in blocks seeded by rng.split(block): the output is identical at any thread count.
#pragma once

#include <cstdint>
#include <string>

#include "loom/graph/store.hpp"

namespace loom::graph::generate {

struct RmatOptions {
  int scale = 0;            // 2^scale vertices, 1..31
  double edge_factor = 16;  // generated edges per vertex (before symmetrising and deduplicating)
  double a = 0.57, b = 0.19, c = 0.19;
  std::int64_t feat_dim = 0;           // 0 = no features
  int classes = 0;                     // 0 = no labels or splits
  double train = 0.08, valid = 0.016;  // split fractions (test = the rest), with labels only
  std::uint64_t seed = 0;
};

// Throws Error naming the offending argument (--scale, --edge-factor, --a/--b/--c, ...).
void check(const RmatOptions& options);
GraphData generate_rmat(const RmatOptions& options);
// check + generate + atomic write of the store.
void generate_rmat_store(const RmatOptions& options, const std::string& output_dir, const StoreWriteOptions& write);

}  // namespace loom::graph::generate
