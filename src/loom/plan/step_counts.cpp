#include "loom/plan/step_counts.hpp"

#include <algorithm>
#include <limits>
#include <map>

#include "loom/core/log.hpp"
#include "loom/sample/epoch_plan.hpp"
#include "loom/sample/neighbor_sampler.hpp"

namespace loom::plan {

namespace {

constexpr std::int64_t kNotHeld = std::numeric_limits<std::int64_t>::max();

// For each policy the holdings use, each vertex's place in part k's ranking of remote rows
// (kNotHeld beyond the largest capacity asked).
std::map<feature::CachePolicy, std::vector<std::int64_t>> rankings(const KWayGraph& g, const SamplingSpec& spec,
                                                                   const std::vector<RemoteRows>& holdings, int k,
                                                                   std::int64_t steps) {
  std::map<feature::CachePolicy, std::int64_t> most;
  for (const RemoteRows& h : holdings)
    if (h.policy != feature::CachePolicy::kNone) most[h.policy] = std::max(most[h.policy], h.capacity[k]);
  std::map<feature::CachePolicy, std::vector<std::int64_t>> place;
  for (const auto& [policy, capacity] : most) {
    feature::CacheContext context;
    context.graph = &g.csr;
    context.book = g.book;
    context.rank = k;
    context.train_ids = g.train_ids[k];
    context.fanouts = spec.fanouts;
    context.batch_size = spec.batch_size;
    context.steps = steps;
    context.measured = {spec.seed, 0, 1};
    context.simulation_epochs = spec.simulation_epochs;
    const auto held = feature::select_cache(feature::cache_scores(policy, context), g.book, k, capacity);
    std::vector<std::int64_t>& at = place[policy];
    at.assign(static_cast<std::size_t>(g.book.num_nodes()), kNotHeld);
    for (std::size_t i = 0; i < held.size(); ++i) at[held[i]] = static_cast<std::int64_t>(i);
  }
  return place;
}

StepCount count_step(const KWayGraph& g, const sample::SampledBatch& batch, int k,
                     const std::vector<RemoteRows>& holdings,
                     const std::map<feature::CachePolicy, std::vector<std::int64_t>>& place) {
  StepCount step;
  for (const sample::Block& b : batch.blocks) step.layers.push_back({b.num_dst, b.num_src, b.num_edges()});
  step.input_rows = static_cast<std::int64_t>(batch.input_nodes.size());
  step.fetched.assign(holdings.size(), std::vector<std::int64_t>(static_cast<std::size_t>(g.parts()), 0));
  const partition::IdRange mine = g.book.range(k);
  for (const std::int64_t v : batch.input_nodes) {
    if (mine.contains(v)) continue;
    ++step.remote_rows;
    const int owner = g.book.owner(v);
    for (std::size_t c = 0; c < holdings.size(); ++c) {
      const RemoteRows& h = holdings[c];
      const bool held = h.policy != feature::CachePolicy::kNone && place.at(h.policy)[v] < h.capacity[k];
      if (!held) ++step.fetched[c][owner];
    }
  }
  return step;
}

}  // namespace

EpochCounts count_epoch(const KWayGraph& g, const SamplingSpec& spec, const std::vector<RemoteRows>& holdings) {
  const sample::NeighborSampler sampler(g.csr, spec.fanouts);
  std::vector<std::int64_t> train_counts;
  for (const auto& ids : g.train_ids) train_counts.push_back(static_cast<std::int64_t>(ids.size()));
  EpochCounts counts;
  counts.steps = sample::steps_per_epoch(train_counts, spec.batch_size);
  for (int k = 0; k < g.parts(); ++k) {
    const auto place = rankings(g, spec, holdings, k, counts.steps);
    std::vector<StepCount>& steps = counts.parts.emplace_back();
    for (const sample::StepPlan& plan :
         sample::plan_epoch(g.train_ids[k], counts.steps, spec.batch_size, spec.seed, 0, k)) {
      const sample::SampledBatch batch = sampler.sample(plan.seeds, plan.sample_seed);
      steps.push_back(count_step(g, batch, k, holdings, place));
    }
    spdlog::debug("plan: counted part {}/{} ({} steps)", k + 1, g.parts(), counts.steps);
  }
  return counts;
}

}  // namespace loom::plan
