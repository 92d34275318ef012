// Cache policy `degree`: highest degree first.
#include "loom/feature/cache_policy.hpp"

namespace loom::feature::policies {

std::vector<double> degree(const CacheContext& c) {
  const auto indptr = c.graph->indptr();
  std::vector<double> scores(c.graph->num_rows());
  for (std::size_t v = 0; v < scores.size(); ++v) scores[v] = static_cast<double>(indptr[v + 1] - indptr[v]);
  return scores;
}

}  // namespace loom::feature::policies
