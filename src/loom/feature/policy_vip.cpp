// Cache policy `vip`: the rank's own vertex inclusion probabilities.
#include "loom/feature/cache_policy.hpp"
#include "loom/feature/vip.hpp"

namespace loom::feature::policies {

std::vector<double> vip(const CacheContext& c) { return vip_log_miss(*c.graph, c.train_ids, c.batch_size, c.fanouts); }

}  // namespace loom::feature::policies
