// `loom check STORE`: what can be checked of a graph store or a partitioned store without training
// on it. Every file against the digest its meta.json records (format/digest.hpp); then every
// invariant Loom relies on: each store's arrays against its meta.json and the ranges they must
// keep (GraphStore::open, graph/store_check.hpp) and the invariants of graph/store_invariants.hpp
// (sorted rows, symmetry, disjoint splits, finite values), and for a partitioned store that the book, the
// topology and the parts agree (each part's rows are its range of the topology's rows, its halo
// lies outside it, split sizes sum to the totals) and that new_to_source.npy is a permutation.
// Problems are collected rather than thrown, each naming its file (and entry), so one run lists
// them all. Digests are computed in parallel with a progress bar over the bytes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace loom::partition {

struct StoreCheck {
  std::vector<std::string> problems;
  std::int64_t files = 0, bytes = 0;    // files and bytes digested
  std::vector<std::string> undigested;  // store folders whose meta.json records no digests
  double seconds = 0;
  bool ok() const { return problems.empty(); }
  nlohmann::json to_json() const;
};

StoreCheck check_store(const std::string& dir, bool progress = true);

}  // namespace loom::partition
