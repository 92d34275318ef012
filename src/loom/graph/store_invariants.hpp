// What `loom check` verifies of a graph store beyond the ranges GraphStore::open checks
// (store_check.hpp), each failure a problem naming the file, the entry and the value:
//   - each row's neighbours ascending, and distinct unless the import kept duplicates
//     (provenance edge_policy.duplicates "keep"), where the store holds its rows (not rows_from);
//   - an undirected store symmetric: v in u's row exactly when u in v's (where `symmetry`: a part
//     of a partitioned store holds rows whose neighbours it does not hold, so its topology is
//     checked instead);
//   - each split's ids distinct, and no id in two splits;
//   - feature values and edge weights finite (a feature file the store maps where it lies too; a
//     part's rows of its source's file are the source's to check).
// One parallel pass over each array (symmetry: one binary search per edge).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "loom/graph/store.hpp"

namespace loom::graph {

std::vector<std::string> store_invariant_problems(const GraphStore& store, bool symmetry);

// Splits as row ids (each in [0, rows)), by name.
using SplitIds = std::map<std::string, std::span<const std::int64_t>>;
// The first id repeated within a split or held by two splits, as a message naming where(split)
// (the split's file), the entry and the id; "" when the splits are distinct and disjoint.
std::string split_overlap(const SplitIds& splits, std::int64_t rows,
                          const std::function<std::string(const std::string&)>& where);
// Throws Error with split_overlap's message: a node in two splits is trained on and scored (test
// leakage), and one twice in a split is weighted twice. Trainers call it on what they open.
void check_disjoint_splits(const GraphStore& store);
std::string leakage_advice();

}  // namespace loom::graph
