// Builds a canonical CSR from an edge list, GAP-style: count degrees, prefix sum, scatter,
// then sort each row and apply the duplicate and self-loop policies. Output order does not
// depend on the thread count. With `symmetric`, each edge (u, v) is stored as u->v and v->u.
#pragma once

#include <cstdint>
#include <vector>

#include "loom/core/enum_names.hpp"

namespace loom::graph {

struct EdgeList {
  std::vector<std::int64_t> src, dst;  // dense ids in [0, num_nodes)
  std::vector<float> weight;           // empty, or one per edge
  std::int64_t num_nodes = 0;
};

enum class DuplicatePolicy { kRemove, kKeep };
inline constexpr core::EnumNames<DuplicatePolicy, 2> kDuplicatePolicyNames{
    {{"remove", DuplicatePolicy::kRemove}, {"keep", DuplicatePolicy::kKeep}}};
enum class SelfLoopPolicy { kRemove, kKeep };
inline constexpr core::EnumNames<SelfLoopPolicy, 2> kSelfLoopPolicyNames{
    {{"remove", SelfLoopPolicy::kRemove}, {"keep", SelfLoopPolicy::kKeep}}};

struct CsrBuildOptions {
  bool symmetric = true;
  DuplicatePolicy duplicates = DuplicatePolicy::kRemove;  // kRemove keeps the first weight
  SelfLoopPolicy self_loops = SelfLoopPolicy::kRemove;
};

struct BuiltCsr {
  std::vector<std::int64_t> indptr;  // num_nodes + 1
  std::vector<std::int64_t> indices;
  std::vector<float> weight;  // empty unless the edge list had weights
  std::int64_t num_nodes = 0;
  std::int64_t self_loops_removed = 0;
  std::int64_t duplicates_removed = 0;
};

// Consumes the edge list's memory (it is cleared) to bound peak memory at large scale.
BuiltCsr build_csr(EdgeList& edges, const CsrBuildOptions& options);

}  // namespace loom::graph
