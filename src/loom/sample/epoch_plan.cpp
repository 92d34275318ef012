#include "loom/sample/epoch_plan.hpp"

#include <algorithm>

#include "loom/core/rng.hpp"
#include "loom/sample/neighbor_sampler.hpp"

namespace loom::sample {

std::vector<StepPlan> plan_epoch(std::span<const std::int64_t> train_ids, std::int64_t steps, std::int64_t batch_size,
                                 std::uint64_t run_seed, int epoch, int rank, SeedOrder seed_order) {
  std::vector<std::int64_t> order(train_ids.begin(), train_ids.end());
  if (seed_order == SeedOrder::kShuffled) {
    core::Rng rng = core::Rng(run_seed).split(0x7261696e /*"rain"*/, static_cast<std::uint64_t>(epoch),
                                              static_cast<std::uint64_t>(rank));
    core::shuffle(order.begin(), order.end(), rng);
  }
  std::vector<StepPlan> plan(static_cast<std::size_t>(steps));
  const auto n = static_cast<std::int64_t>(order.size());
  for (std::int64_t s = 0; s < steps; ++s) {
    auto& step = plan[s];
    if (n > 0) {
      const std::int64_t size = std::min(batch_size, n);
      step.seeds.reserve(size);
      for (std::int64_t i = 0; i < size; ++i) step.seeds.push_back(order[(s * batch_size + i) % n]);
      std::sort(step.seeds.begin(), step.seeds.end());
      step.seeds.erase(std::unique(step.seeds.begin(), step.seeds.end()), step.seeds.end());
    }
    step.sample_seed = batch_seed(core::mix_seed(run_seed, static_cast<std::uint64_t>(rank)), epoch, s);
  }
  return plan;
}

std::int64_t steps_per_epoch(std::span<const std::int64_t> train_counts, std::int64_t batch_size) {
  std::int64_t steps = 0;
  for (const std::int64_t n : train_counts) steps = std::max(steps, (n + batch_size - 1) / batch_size);
  return steps;
}

}  // namespace loom::sample
