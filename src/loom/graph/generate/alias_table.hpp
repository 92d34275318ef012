// Walker/Vose alias table: O(n) construction from non-negative weights, O(1) sampling of an
// index with probability weight[i] / sum(weights). Used by the SBM generator to draw edge
// endpoints by expected degree. Sampling is const and takes the caller's Rng.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "loom/core/rng.hpp"

namespace loom::graph::generate {

class AliasTable {
 public:
  AliasTable() = default;
  // weights must be non-negative with a positive sum (Error otherwise).
  explicit AliasTable(std::span<const double> weights);

  std::int64_t size() const { return static_cast<std::int64_t>(prob_.size()); }
  std::int64_t sample(core::Rng& rng) const {
    const auto i = static_cast<std::int64_t>(rng.below(prob_.size()));
    return rng.uniform_float() < prob_[i] ? i : alias_[i];
  }

 private:
  std::vector<float> prob_;
  std::vector<std::int64_t> alias_;
};

}  // namespace loom::graph::generate
