// Empirical inclusion counts: for every vertex, in how many mini-batches of the given epochs it
// is an input node, sampling exactly the batches a trainer on `rank` takes (sample::plan_epoch
// with the same run seed). Simulation and oracle cache policies rank vertices by these counts;
// tests compare them with the VIP analysis.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "loom/sample/neighbor_sampler.hpp"

namespace loom::feature {

struct EpochRange {
  std::uint64_t run_seed = 0;
  int first_epoch = 0;
  int epochs = 1;
};

std::vector<std::int32_t> count_inclusions(const sample::NeighborSampler& sampler,
                                           std::span<const std::int64_t> train_ids, std::int64_t steps,
                                           std::int64_t batch_size, int rank, const EpochRange& epochs);

}  // namespace loom::feature
