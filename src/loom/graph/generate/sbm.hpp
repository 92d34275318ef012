// `loom generate sbm`: a stochastic block model (planted partition) with class-correlated
// features, generated in O(E). Classes are balanced and randomly placed. Each of
// nodes * avg_degree / 2 edges picks a source by expected degree, then a destination inside the
// source's class with probability `homophily`, else outside it (again by expected degree).
// Expected degrees are equal, or with `degree_skew` = gamma > 2, Pareto weights giving a
// power-law degree distribution with exponent gamma. Features: a random centroid per class
// (entries N(0, 1/feat_dim), so centroids have norm ~1 at any width) plus N(0, feat_noise^2)
// noise per entry; the default noise makes features alone a middling predictor so that the graph
// helps. Labels = classes; seeded random train/valid splits, test = the rest. The graph is stored
// symmetric without duplicates or self-loops. Identical output at any thread count.
#pragma once

#include <cstdint>
#include <string>

#include "loom/graph/store.hpp"

namespace loom::graph::generate {

struct SbmOptions {
  std::int64_t nodes = 0;
  int classes = 0;
  double avg_degree = 0;   // stored (symmetric) degree before deduplication
  double homophily = 0.8;  // fraction of intra-class edges
  double degree_skew = 0;  // 0 = equal expected degrees, else power-law exponent gamma > 2
  std::int64_t feat_dim = 0;
  double feat_noise = 0.4;  // F=100, C=47: nearest class mean ~55% on features alone
  std::int64_t words = 0;   // > 0: binary bag-of-words rows of this many words (sparse layout) instead
  double train = 0.08, valid = 0.016;
  std::uint64_t seed = 0;
};

// Throws Error naming the offending argument (--nodes, --classes, --homophily, ...).
void check(const SbmOptions& options);
GraphData generate_sbm(const SbmOptions& options);
// check + generate + atomic write of the store.
void generate_sbm_store(const SbmOptions& options, const std::string& output_dir, const StoreWriteOptions& write);

}  // namespace loom::graph::generate
