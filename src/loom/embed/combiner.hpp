// Gradient combiners for distributed SGNS (GraphAny2Vec): how the updates that several ranks
// made to the same embedding row in one synchronisation round become one update.
//   average  the mean of the updates of the ranks that touched the row
//   sum      their sum
//   gc       the gradient combiner: combine(g1, g2) = g1 + g2 - ((g1.g2)/|g1|^2) g1, i.e. g1 plus
//            the part of g2 orthogonal to g1, so agreeing updates are not double-counted
// Updates are combined in a fixed binary tree over rank order ((g0 g1)(g2 g3))..., so every rank
// computes bit-identical results.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "loom/core/enum_names.hpp"

namespace loom::embed {

enum class Combiner { kAverage, kSum, kGc };
inline constexpr core::EnumNames<Combiner, 3> kCombinerNames{
    {{"average", Combiner::kAverage}, {"sum", Combiner::kSum}, {"gc", Combiner::kGc}}};
inline std::string combiner_name(Combiner combiner) { return core::enum_name(kCombinerNames, combiner); }

// out[0..dim) = the combination of `updates` (each of dim floats, in rank order; at least one).
void combine_updates(Combiner combiner, std::span<const float* const> updates, std::int64_t dim, float* out);

}  // namespace loom::embed
