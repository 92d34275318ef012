#include "loom/graph/generate/alias_table.hpp"

#include <cmath>

#include "loom/core/error.hpp"

namespace loom::graph::generate {

AliasTable::AliasTable(std::span<const double> weights) {
  const auto n = static_cast<std::int64_t>(weights.size());
  LOOM_CHECK(n > 0, "alias table: no weights");
  double sum = 0;
  for (double w : weights) {
    LOOM_CHECK(w >= 0 && std::isfinite(w), "alias table: weight {} is not a finite non-negative number", w);
    sum += w;
  }
  LOOM_CHECK(sum > 0, "alias table: weights sum to zero");
  prob_.resize(static_cast<std::size_t>(n));
  alias_.resize(static_cast<std::size_t>(n));
  std::vector<double> scaled(static_cast<std::size_t>(n));
  std::vector<std::int64_t> small, large;
  for (std::int64_t i = 0; i < n; ++i) {
    scaled[i] = weights[i] * static_cast<double>(n) / sum;
    (scaled[i] < 1.0 ? small : large).push_back(i);
  }
  while (!small.empty() && !large.empty()) {
    const std::int64_t s = small.back(), l = large.back();
    small.pop_back();
    prob_[s] = static_cast<float>(scaled[s]);
    alias_[s] = l;
    scaled[l] -= 1.0 - scaled[s];
    if (scaled[l] < 1.0) {
      large.pop_back();
      small.push_back(l);
    }
  }
  // What is left is 1 up to rounding.
  for (std::int64_t i : large) prob_[i] = 1.0f, alias_[i] = i;
  for (std::int64_t i : small) prob_[i] = 1.0f, alias_[i] = i;
}

}  // namespace loom::graph::generate
