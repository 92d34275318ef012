#include "loom/feature/inclusion_counts.hpp"

#include "loom/sample/epoch_plan.hpp"

namespace loom::feature {

std::vector<std::int32_t> count_inclusions(const sample::NeighborSampler& sampler,
                                           std::span<const std::int64_t> train_ids, std::int64_t steps,
                                           std::int64_t batch_size, int rank, const EpochRange& epochs) {
  std::vector<std::int32_t> counts(static_cast<std::size_t>(sampler.graph().num_rows()), 0);
  for (int epoch = epochs.first_epoch; epoch < epochs.first_epoch + epochs.epochs; ++epoch) {
    for (const auto& step : sample::plan_epoch(train_ids, steps, batch_size, epochs.run_seed, epoch, rank)) {
      if (step.seeds.empty()) continue;
      const auto batch = sampler.sample(step.seeds, step.sample_seed);
      for (const std::int64_t v : batch.input_nodes) ++counts[v];
    }
  }
  return counts;
}

}  // namespace loom::feature
