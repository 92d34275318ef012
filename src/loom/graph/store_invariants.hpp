// What `loom check` verifies of a graph store beyond the ranges GraphStore::open checks
// (store_check.hpp), each failure a problem naming the file, the entry and the value:
//   - each row's neighbours ascending, and distinct unless the import kept duplicates
//     (provenance edge_policy.duplicates "keep"), where the store holds its rows (not rows_from);
//   - an undirected store symmetric: v in u's row exactly when u in v's (where `symmetry`: a part
//     of a partitioned store holds rows whose neighbours it does not hold, so its topology is
//     checked instead);
//   - each split's ids distinct, and no id in two splits;
//   - feature values and edge weights finite.
// One parallel pass over each array (symmetry: one binary search per edge).
#pragma once

#include <string>
#include <vector>

#include "loom/graph/store.hpp"

namespace loom::graph {

std::vector<std::string> store_invariant_problems(const GraphStore& store, bool symmetry);

}  // namespace loom::graph
