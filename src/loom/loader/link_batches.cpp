#include "loom/loader/link_batches.hpp"

#include <algorithm>
#include <cmath>

#include "loom/core/error.hpp"
#include "loom/core/rng.hpp"
#include "loom/sample/neighbor_sampler.hpp"

namespace loom::loader {

NegativeSampler::NegativeSampler(const graph::Csr& graph, NegativeSampling kind) : num_nodes_(graph.num_rows()) {
  LOOM_CHECK_ARG(num_nodes_ > 1, "graph", "negative pairs need at least 2 nodes, the graph has {}", num_nodes_);
  if (kind == NegativeSampling::kUniform) return;
  const auto indptr = graph.indptr();
  cumulative_degree_.assign(indptr.begin(), indptr.end());
  LOOM_CHECK_ARG(cumulative_degree_.back() > 0, "--negatives", "degree sampling needs edges; the graph has none");
}

std::int64_t NegativeSampler::draw(core::Rng& rng) const {
  if (cumulative_degree_.empty()) return static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(num_nodes_)));
  const auto r = static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(cumulative_degree_.back())));
  return std::upper_bound(cumulative_degree_.begin(), cumulative_degree_.end(), r) - cumulative_degree_.begin() - 1;
}

std::int64_t link_steps(std::int64_t count, std::int64_t batch_size) { return (count + batch_size - 1) / batch_size; }

namespace {

// The step's seeds (its pairs' distinct endpoints, ascending) and each pair's rows among them.
void index_pairs(const LinkPairs& pairs, sample::StepPlan& step, LinkTargets& targets) {
  step.seeds.reserve(2 * pairs.size());
  step.seeds.insert(step.seeds.end(), pairs.src.begin(), pairs.src.end());
  step.seeds.insert(step.seeds.end(), pairs.dst.begin(), pairs.dst.end());
  std::sort(step.seeds.begin(), step.seeds.end());
  step.seeds.erase(std::unique(step.seeds.begin(), step.seeds.end()), step.seeds.end());
  const auto row = [&](std::int64_t v) {
    return std::lower_bound(step.seeds.begin(), step.seeds.end(), v) - step.seeds.begin();
  };
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    targets.src_row.push_back(row(pairs.src[i]));
    targets.dst_row.push_back(row(pairs.dst[i]));
  }
  targets.label = pairs.label;
}

}  // namespace

LinkEpochPlan plan_link_epoch(const LinkPairs& supervision, const NegativeSampler& negatives, std::int64_t steps,
                              const LinkEpochOptions& o, int epoch, int rank) {
  std::vector<std::int64_t> order(supervision.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<std::int64_t>(i);
  if (o.order == sample::SeedOrder::kShuffled) {
    core::Rng shuffle_rng =
        core::Rng(o.run_seed)
            .split(0x6c696e6b /*"link"*/, static_cast<std::uint64_t>(epoch), static_cast<std::uint64_t>(rank));
    core::shuffle(order.begin(), order.end(), shuffle_rng);
  }
  LinkEpochPlan plan;
  plan.steps.resize(static_cast<std::size_t>(steps));
  plan.targets.resize(static_cast<std::size_t>(steps));
  const auto n = static_cast<std::int64_t>(order.size());
  for (std::int64_t s = 0; s < steps; ++s) {
    sample::StepPlan& step = plan.steps[static_cast<std::size_t>(s)];
    step.sample_seed = sample::batch_seed(core::mix_seed(o.run_seed, static_cast<std::uint64_t>(rank)), epoch, s);
    if (n == 0) continue;
    LinkPairs pairs;
    const std::int64_t size = std::min(o.batch_size, n);
    for (std::int64_t i = 0; i < size; ++i) {
      const auto p = static_cast<std::size_t>(order[static_cast<std::size_t>((s * o.batch_size + i) % n)]);
      pairs.add(supervision.src[p], supervision.dst[p], supervision.label[p]);
      if (o.drop_positive_edges && supervision.label[p] > 0.5F)
        step.dropped_pairs.insert(step.dropped_pairs.end(), {supervision.src[p], supervision.dst[p]});
    }
    core::Rng negative_rng = core::Rng(step.sample_seed).split(0x6e6567 /*"neg"*/);
    const auto count = static_cast<std::int64_t>(std::llround(o.negative_ratio * static_cast<double>(size)));
    for (std::int64_t i = 0; i < count; ++i) {
      const std::int64_t u = negatives.draw(negative_rng), v = negatives.draw(negative_rng);
      pairs.add(u, v, 0.0F);
    }
    index_pairs(pairs, step, plan.targets[static_cast<std::size_t>(s)]);
  }
  return plan;
}

LinkEpochPlan eval_link_batches(const LinkPairs& pairs, std::int64_t batch_size, std::int64_t steps,
                                std::uint64_t seed) {
  LinkEpochPlan plan;
  plan.steps.resize(static_cast<std::size_t>(steps));
  plan.targets.resize(static_cast<std::size_t>(steps));
  const auto n = static_cast<std::int64_t>(pairs.size());
  for (std::int64_t s = 0; s < steps; ++s) {
    sample::StepPlan& step = plan.steps[static_cast<std::size_t>(s)];
    step.sample_seed = core::mix_seed(seed, static_cast<std::uint64_t>(s));
    LinkPairs part;
    for (std::int64_t i = s * batch_size; i < std::min(n, (s + 1) * batch_size); ++i) {
      const auto p = static_cast<std::size_t>(i);
      part.add(pairs.src[p], pairs.dst[p], pairs.label[p]);
    }
    index_pairs(part, step, plan.targets[static_cast<std::size_t>(s)]);
  }
  return plan;
}

}  // namespace loom::loader
