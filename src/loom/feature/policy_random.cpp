// Cache policy `random`: a uniform random order, seeded by the run seed and the rank.
#include "loom/core/rng.hpp"
#include "loom/feature/cache_policy.hpp"

namespace loom::feature::policies {

std::vector<double> random(const CacheContext& c) {
  core::Rng rng = core::Rng(c.measured.run_seed).split(0x72616e64 /*"rand"*/, static_cast<std::uint64_t>(c.rank));
  std::vector<double> scores(c.graph->num_rows());
  for (auto& s : scores) s = 1.0 - rng.uniform();  // in (0, 1]
  return scores;
}

}  // namespace loom::feature::policies
