// The seeds and sampling seeds of every step of a training epoch, as a mini-batch trainer on
// one rank takes them: the rank's training ids shuffled per (run seed, epoch, rank) (or in the
// order given, SeedOrder::kAsGiven: PyG's shuffle=False), cut into
// `steps` batches of `batch_size` (cycling when the rank has fewer than steps * batch_size ids,
// so every rank runs the same number of steps), each batch sorted and free of duplicates, with a
// sampling seed per (run seed, rank, epoch, step). Trainers and cache analyses (simulation and
// oracle policies) share it, so an analysis sees exactly the batches training will sample.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace loom::sample {

struct StepPlan {
  std::vector<std::int64_t> seeds;
  std::uint64_t sample_seed = 0;
  // (u, v) global id pairs, flattened, whose message edges the sampled blocks leave out (link
  // prediction's supervision edges: dropped_pairs.hpp); empty for node tasks.
  std::vector<std::int64_t> dropped_pairs;
};

enum class SeedOrder { kShuffled, kAsGiven };

std::vector<StepPlan> plan_epoch(std::span<const std::int64_t> train_ids, std::int64_t steps, std::int64_t batch_size,
                                 std::uint64_t run_seed, int epoch, int rank, SeedOrder order = SeedOrder::kShuffled);

// Steps per epoch when the ranks hold `train_counts` training ids: the most any rank needs.
std::int64_t steps_per_epoch(std::span<const std::int64_t> train_counts, std::int64_t batch_size);

}  // namespace loom::sample
