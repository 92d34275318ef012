// Epoch simulation: the steps of one epoch on every rank, task by task, as the trainer runs them,
// so that what sums of averages miss is in the prediction: the slowest rank of each collective
// (load imbalance from the real per-part counts), the pipeline's overlap and its limit (a
// sampler that runs at most `depth` batches ahead of the model), and contention for a resource.
// Each step s of rank k is a chain
//     sample -> gather -> fetch (collective) -> copy -> compute -> all-reduce (collective)
// on four resources per host: the cores (sample, gather, compute without a GPU, and a fetch's
// host part), the network (fetch and all-reduce), the copy engine and the GPU. A task starts when its predecessors in
// the chain and the same task of the step before are done and its resource is free; a collective starts when every rank
// is ready and lasts its slowest rank's time. With depth D > 0 sampling of step s waits for the model to start step s -
// D; with D = 0 (no pipeline) for step s - 1's all-reduce. Tasks are placed greedily, the one that can start earliest
// first.
#pragma once

#include <cstdint>

#include <nlohmann/json.hpp>

#include "loom/plan/step_costs.hpp"

namespace loom::plan {

enum Phase { kSample, kGather, kFetch, kCopy, kCompute, kAllreduce, kPhases };
inline constexpr const char* kPhaseNames[kPhases] = {"sample", "gather", "fetch", "copy", "compute", "allreduce"};

struct EpochPrediction {
  double epoch_seconds = 0;
  double busy[kPhases] = {};      // seconds each phase's tasks took, summed over steps, mean over ranks
  double exposed[kPhases] = {};   // of which the model waited for (the rest the pipeline hid)
  double slowest_rank_share = 1;  // slowest rank's producer work / the mean rank's (load imbalance)
  nlohmann::json to_json() const;
};

EpochPrediction simulate_epoch(const EpochCosts& costs, int pipeline_depth);

}  // namespace loom::plan
