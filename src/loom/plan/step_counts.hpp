// Step counts: the work of every step of one epoch on every part, counted by sampling exactly the
// batches the trainer samples (sample::plan_epoch with the run's seed, epoch 0, each part as its
// rank; the same NeighborSampler) on a KWayGraph: each block's rows and edges, the input rows,
// and for each way of holding remote rows (none; a static cache by a policy; a prefetch buffer
// modelled by its best static contents) the rows left to fetch from each owner part. Caches are
// chosen as `loom train` chooses them (feature::cache_scores, select_cache; per-part capacity).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "loom/feature/cache_policy.hpp"
#include "loom/plan/kway_graph.hpp"
#include "loom/sample/fanouts.hpp"

namespace loom::plan {

// A way of holding remote rows: `policy` none leaves every remote row to fetch; otherwise part k
// holds the capacity[k] remote rows its policy ranks first.
struct RemoteRows {
  std::string name;  // "none", "vip a=0.2", "prefetch 0.5"
  feature::CachePolicy policy = feature::CachePolicy::kNone;
  std::vector<std::int64_t> capacity;  // per part (rows)
};

struct LayerCount {
  std::int64_t dst = 0, src = 0, edges = 0;
};

struct StepCount {
  std::vector<LayerCount> layers;  // input layer first
  std::int64_t input_rows = 0;
  std::int64_t remote_rows = 0;  // input rows other parts own (before any cache)
  // fetched[c][p]: rows this step fetches from part p under RemoteRows c (0 for its own part)
  std::vector<std::vector<std::int64_t>> fetched;
};

struct SamplingSpec {
  sample::Fanouts fanouts{15, 10, 5};
  std::int64_t batch_size = 1024;  // seeds per step and part (the stand-in's, for a stand-in)
  std::uint64_t seed = 0;
  int simulation_epochs = 2;  // the simulation cache policy's
};

struct EpochCounts {
  std::int64_t steps = 0;                     // per part (every part runs the same number)
  std::vector<std::vector<StepCount>> parts;  // [part][step]
};

EpochCounts count_epoch(const KWayGraph& graph, const SamplingSpec& spec, const std::vector<RemoteRows>& holdings);

}  // namespace loom::plan
