// Seeded random node splits shared by the generators and importers: a permutation drawn from
// one Rng, cut into consecutive pieces, each piece returned sorted. Same seed, same splits, at
// any thread count.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "loom/core/rng.hpp"
#include "loom/graph/store.hpp"

namespace loom::graph::generate {

// Splits the ids `pool` (any order) into pieces of the given sizes, in order, after a shuffle
// with `rng`; the remainder goes to `rest_name` (skipped when empty). Sizes must sum to at most
// pool.size().
std::map<std::string, std::vector<std::int64_t>> random_splits(
    std::vector<std::int64_t> pool, const std::vector<std::pair<std::string, std::int64_t>>& sizes,
    const std::string& rest_name, core::Rng rng);

// Sizes round(fraction * n) for train/valid fractions in [0, 1] with train + valid <= 1; throws
// Error naming "--train" / "--valid" otherwise. The test split is the rest.
std::vector<std::pair<std::string, std::int64_t>> fraction_sizes(std::int64_t n, double train, double valid);

// A seeded random train/valid/test split of the labelled rows of `data` (class id >= 0, or at
// least one label when multi-label; every row when it has no labels): fractions as in
// fraction_sizes, the rest test. For graphs that come without a split (BlogCatalog, PPI).
std::map<std::string, std::vector<std::int64_t>> labelled_random_splits(const GraphData& data, double train,
                                                                        double valid, std::uint64_t seed);

}  // namespace loom::graph::generate
