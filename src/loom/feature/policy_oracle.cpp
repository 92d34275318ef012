// Cache policy `oracle`: inclusion counts of exactly the epochs being measured, so no static
// cache of the same size can move fewer remote rows in them.
#include "loom/feature/cache_policy.hpp"

namespace loom::feature::policies {

std::vector<double> oracle(const CacheContext& c) {
  const sample::NeighborSampler sampler(*c.graph, c.fanouts);
  const auto counts = count_inclusions(sampler, c.train_ids, c.steps, c.batch_size, c.rank, c.measured);
  return {counts.begin(), counts.end()};
}

}  // namespace loom::feature::policies
