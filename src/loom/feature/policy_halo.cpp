// Cache policy `halo`: the remote 1-hop neighbours of the rank's training nodes, highest degree
// first; no vertex beyond that halo is cached.
#include "loom/feature/cache_policy.hpp"

namespace loom::feature::policies {

std::vector<double> halo(const CacheContext& c) {
  std::vector<double> scores(c.graph->num_rows(), 0.0);
  const auto indptr = c.graph->indptr();
  c.graph->visit([&](auto view) {
    for (const std::int64_t t : c.train_ids)
      for (const auto u : view.neighbors(t)) scores[u] = static_cast<double>(indptr[u + 1] - indptr[u]);
  });
  return scores;
}

}  // namespace loom::feature::policies
