#include "loom/plan/epoch_simulation.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <vector>

namespace loom::plan {

namespace {

constexpr double kNever = std::numeric_limits<double>::infinity();

// The chain's tasks in placement order of preference at equal start times (the model first).
enum Task { kTaskCompute, kTaskAllreduce, kTaskCopy, kTaskFetch, kTaskGather, kTaskSample };

struct RankState {
  std::vector<double> sample_end, gather_end, copy_end, compute_start, compute_end;
  std::int64_t next[6] = {};  // next step of each task
  double cores_free = 0, network_free = 0, copy_free = 0, gpu_free = 0;
};

class Simulation {
 public:
  Simulation(const EpochCosts& costs, int depth)
      : costs_(costs),
        depth_(depth),
        steps_(static_cast<std::int64_t>(costs.fetch_seconds.size())),
        ranks_(costs.parts.size()) {
    for (RankState& r : ranks_)
      for (auto* v : {&r.sample_end, &r.gather_end, &r.copy_end, &r.compute_start, &r.compute_end})
        v->assign(static_cast<std::size_t>(steps_), 0.0);
    fetch_end_.assign(static_cast<std::size_t>(steps_), 0.0);
    allreduce_end_.assign(static_cast<std::size_t>(steps_), 0.0);
  }

  void run() {
    const std::int64_t tasks = steps_ * (4 * static_cast<std::int64_t>(ranks_.size()) + 2);
    for (std::int64_t placed = 0; placed < tasks; ++placed) {
      double best = kNever;
      int best_rank = -1;
      Task best_task = kTaskSample;
      for (int task = kTaskCompute; task <= kTaskSample; ++task) {
        const bool collective = task == kTaskFetch || task == kTaskAllreduce;
        for (int k = 0; k < (collective ? 1 : static_cast<int>(ranks_.size())); ++k) {
          const double start = earliest(static_cast<Task>(task), k);
          if (start < best) {
            best = start;
            best_rank = k;
            best_task = static_cast<Task>(task);
          }
        }
      }
      place(best_task, best_rank, best);
    }
  }

  EpochPrediction prediction() const {
    EpochPrediction p;
    p.epoch_seconds = steps_ > 0 ? allreduce_end_.back() : 0;
    const double ranks = static_cast<double>(ranks_.size());
    std::vector<double> producer(ranks_.size(), 0.0);
    for (std::size_t k = 0; k < ranks_.size(); ++k) {
      const RankState& r = ranks_[k];
      for (std::int64_t s = 0; s < steps_; ++s) {
        const StepCost& c = costs_.parts[k][s];
        const double durations[kPhases] = {c.sample, c.gather,  costs_.fetch_seconds[s],
                                           c.copy,   c.compute, costs_.allreduce_seconds};
        for (int ph = 0; ph < kPhases; ++ph) p.busy[ph] += durations[ph] / ranks;
        producer[k] += c.sample + c.gather;
        // The model's wait for this batch, shared among the producer's phases by their durations.
        const double ready = s == 0 ? 0 : allreduce_end_[s - 1];
        const double wait = std::max(0.0, r.compute_start[s] - ready);
        const double made = durations[kSample] + durations[kGather] + durations[kFetch] + durations[kCopy];
        for (int ph = kSample; ph <= kCopy; ++ph)
          p.exposed[ph] += (made > 0 ? wait * durations[ph] / made : (ph == kSample ? wait : 0)) / ranks;
        p.exposed[kCompute] += (r.compute_end[s] - r.compute_start[s]) / ranks;
        p.exposed[kAllreduce] += (allreduce_end_[s] - r.compute_end[s]) / ranks;
      }
    }
    const double mean = std::max(1e-300, std::accumulate(producer.begin(), producer.end(), 0.0) / ranks);
    p.slowest_rank_share = *std::max_element(producer.begin(), producer.end()) / mean;
    return p;
  }

 private:
  // When the next instance of `task` on rank k (or the collective) could start; kNever while a
  // predecessor is unplaced or every step is placed.
  double earliest(Task task, int k) const {
    if (task == kTaskFetch || task == kTaskAllreduce) return earliest_collective(task);
    const RankState& r = ranks_[k];
    const std::int64_t s = r.next[task];
    if (s >= steps_) return kNever;
    switch (task) {
      case kTaskSample: {
        double ready = s > 0 ? r.sample_end[s - 1] : 0;
        if (depth_ > 0) {
          if (s - depth_ >= 0) {
            if (r.next[kTaskCompute] <= s - depth_) return kNever;
            ready = std::max(ready, r.compute_start[s - depth_]);
          }
        } else if (s > 0) {
          if (next_allreduce_ <= s - 1) return kNever;
          ready = std::max(ready, allreduce_end_[s - 1]);
        }
        return std::max(ready, r.cores_free);
      }
      case kTaskGather:
        if (r.next[kTaskSample] <= s) return kNever;
        return std::max({r.sample_end[s], s > 0 ? r.gather_end[s - 1] : 0, r.cores_free});
      case kTaskCopy:
        if (next_fetch_ <= s) return kNever;
        return std::max({fetch_end_[s], s > 0 ? r.copy_end[s - 1] : 0, r.copy_free});
      default: {  // compute
        if (r.next[kTaskCopy] <= s || (s > 0 && next_allreduce_ <= s - 1)) return kNever;
        const double ready = std::max(r.copy_end[s], s > 0 ? allreduce_end_[s - 1] : 0);
        return std::max(ready, costs_.on_gpu ? r.gpu_free : r.cores_free);
      }
    }
  }

  double earliest_collective(Task task) const {
    const std::int64_t s = task == kTaskFetch ? next_fetch_ : next_allreduce_;
    if (s >= steps_) return kNever;
    double ready = 0;
    if (s > 0) ready = task == kTaskFetch ? fetch_end_[s - 1] : allreduce_end_[s - 1];
    for (const RankState& r : ranks_) {
      const Task before = task == kTaskFetch ? kTaskGather : kTaskCompute;
      if (r.next[before] <= s) return kNever;
      ready = std::max({ready, task == kTaskFetch ? r.gather_end[s] : r.compute_end[s], r.network_free});
    }
    return ready;
  }

  void place(Task task, int k, double start) {
    if (task == kTaskFetch || task == kTaskAllreduce) {
      const std::int64_t s = task == kTaskFetch ? next_fetch_++ : next_allreduce_++;
      const double end = start + (task == kTaskFetch ? costs_.fetch_seconds[s] : costs_.allreduce_seconds);
      (task == kTaskFetch ? fetch_end_ : allreduce_end_)[s] = end;
      for (std::size_t k = 0; k < ranks_.size(); ++k) {
        RankState& r = ranks_[k];
        r.network_free = end;
        // A fetch's host part is its cores' work as well (the all-reduce's runs on the model's
        // thread between its compute steps, where the cores wait anyway).
        if (task == kTaskFetch) r.cores_free = std::max(r.cores_free, start) + costs_.parts[k][s].fetch_host;
      }
      return;
    }
    RankState& r = ranks_[k];
    const std::int64_t s = r.next[task]++;
    const StepCost& c = costs_.parts[k][s];
    switch (task) {
      case kTaskSample: r.sample_end[s] = r.cores_free = start + c.sample; break;
      case kTaskGather: r.gather_end[s] = r.cores_free = start + c.gather; break;
      case kTaskCopy: r.copy_end[s] = r.copy_free = start + c.copy; break;
      default:
        r.compute_start[s] = start;
        r.compute_end[s] = start + c.compute;
        (costs_.on_gpu ? r.gpu_free : r.cores_free) = r.compute_end[s];
    }
  }

  const EpochCosts& costs_;
  int depth_;
  std::int64_t steps_;
  std::vector<RankState> ranks_;
  std::vector<double> fetch_end_, allreduce_end_;
  std::int64_t next_fetch_ = 0, next_allreduce_ = 0;
};

}  // namespace

nlohmann::json EpochPrediction::to_json() const {
  nlohmann::json busy_j, exposed_j;
  for (int ph = 0; ph < kPhases; ++ph) {
    busy_j[kPhaseNames[ph]] = busy[ph];
    exposed_j[kPhaseNames[ph]] = exposed[ph];
  }
  return {{"epoch_seconds", epoch_seconds},
          {"phase_seconds", busy_j},
          {"exposed_seconds", exposed_j},
          {"slowest_rank_share", slowest_rank_share}};
}

EpochPrediction simulate_epoch(const EpochCosts& costs, int pipeline_depth) {
  Simulation simulation(costs, pipeline_depth);
  simulation.run();
  return simulation.prediction();
}

}  // namespace loom::plan
