// Cache policy `simulation`: inclusion counts over simulation_epochs sampled epochs drawn with a
// seed of their own (not the epochs that training then runs).
#include "loom/core/rng.hpp"
#include "loom/feature/cache_policy.hpp"

namespace loom::feature::policies {

std::vector<double> simulation(const CacheContext& c) {
  LOOM_CHECK_ARG(c.simulation_epochs > 0, "--cache-epochs", "must be positive, got {}", c.simulation_epochs);
  const sample::NeighborSampler sampler(*c.graph, c.fanouts);
  const EpochRange epochs{core::mix_seed(c.measured.run_seed, 0x73696d75 /*"simu"*/), 0, c.simulation_epochs};
  const auto counts = count_inclusions(sampler, c.train_ids, c.steps, c.batch_size, c.rank, epochs);
  return {counts.begin(), counts.end()};
}

}  // namespace loom::feature::policies
