// Link prediction's mini-batches, as PyG's LinkNeighborLoader makes them: each step takes
// `batch_size` of this rank's supervision pairs (positive edges, or labelled pairs given),
// shuffled per (run seed, epoch, rank) or in the order given, and cycled like node seeds (sample::plan_epoch) so that
// every rank runs the same steps, adds `negative_ratio` negatives per positive (pairs drawn uniformly over the nodes,
// or each endpoint in proportion to its degree, deterministic per step), and samples the neighbourhoods of every
// endpoint once: the step's seeds are the distinct endpoints, ascending, and its LinkTargets
// say which seeds each scored pair joins and whether it is an edge (1) or not (0). With
// `drop_positive_edges` the message edges of the step's positives are left out of its sampled
// graph (sample::drop_pair_edges).
// eval_link_batches() cuts a fixed set of labelled pairs into evaluation batches the same way.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "loom/core/enum_names.hpp"
#include "loom/core/rng.hpp"
#include "loom/graph/csr.hpp"
#include "loom/sample/epoch_plan.hpp"

namespace loom::loader {

// Node pairs (global ids) and their labels (1: an edge, 0: not), one entry per pair.
struct LinkPairs {
  std::vector<std::int64_t> src, dst;
  std::vector<float> label;
  std::size_t size() const { return src.size(); }
  void add(std::int64_t u, std::int64_t v, float y) {
    src.push_back(u);
    dst.push_back(v);
    label.push_back(y);
  }
};

// One step's scored pairs as rows of its seeds (the batch's first rows).
struct LinkTargets {
  std::vector<std::int64_t> src_row, dst_row;
  std::vector<float> label;
};

enum class NegativeSampling { kUniform, kDegree };
inline constexpr core::EnumNames<NegativeSampling, 2> kNegativeSamplingNames{
    {{"uniform", NegativeSampling::kUniform}, {"degree", NegativeSampling::kDegree}}};

// Draws negative pairs over a graph's nodes: uniformly, or each endpoint with probability
// proportional to its degree (nodes without edges are then never drawn).
class NegativeSampler {
 public:
  NegativeSampler(const graph::Csr& graph, NegativeSampling kind);
  std::int64_t draw(core::Rng& rng) const;

 private:
  std::int64_t num_nodes_;
  std::vector<std::int64_t> cumulative_degree_;  // kDegree: degree prefix sums, num_nodes + 1
};

struct LinkEpochOptions {
  std::int64_t batch_size = 0;  // positive pairs per step
  double negative_ratio = 1.0;  // negatives per positive (rounded per step)
  bool drop_positive_edges = false;
  std::uint64_t run_seed = 0;
  sample::SeedOrder order = sample::SeedOrder::kShuffled;  // kAsGiven: PyG's shuffle=False
};

// The plan of one epoch (`steps` steps) over this rank's `supervision` pairs (labels kept), and
// each step's targets.
struct LinkEpochPlan {
  std::vector<sample::StepPlan> steps;
  std::vector<LinkTargets> targets;
};
LinkEpochPlan plan_link_epoch(const LinkPairs& supervision, const NegativeSampler& negatives, std::int64_t steps,
                              const LinkEpochOptions& options, int epoch, int rank);

// Steps of an epoch when this rank holds `count` positives (the most any rank needs is taken by
// the caller): ceil(count / batch_size).
std::int64_t link_steps(std::int64_t count, std::int64_t batch_size);

// Evaluation batches of labelled `pairs` (this rank's), `batch_size` pairs per step, `steps`
// steps (the most any rank needs: a rank with fewer gets empty ones).
LinkEpochPlan eval_link_batches(const LinkPairs& pairs, std::int64_t batch_size, std::int64_t steps,
                                std::uint64_t seed);

}  // namespace loom::loader
