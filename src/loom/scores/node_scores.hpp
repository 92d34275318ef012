// Classification scores summed over batches and ranks: accuracy for single-label graphs and
// micro-F1 (logit > 0 predicts a label) for multi-label graphs, plus the top-k micro-F1 of the
// DeepWalk protocol (each node predicts its k highest logits, k = its true label count; then
// precision = recall = F1), which `loom eval nodeclass` also reports, and the mean loss (cross
// entropy, or binary cross entropy averaged over labels). Counts are additive, so each rank
// counts its own nodes and one all-reduce combines them.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <utility>

#include <torch/torch.h>

#include "loom/comm/communicator.hpp"
#include "loom/scores/score_kind.hpp"

namespace loom::scores {

struct ScoreCounts {
  static constexpr std::size_t kFields = 9;
  double correct = 0, labelled = 0;                                     // single-label: right of the nodes counted
  double true_positives = 0, false_positives = 0, false_negatives = 0;  // multi-label, logit > 0 predicts
  double topk_hits = 0, true_labels = 0;                                // multi-label, the top-k protocol
  double loss_sum = 0, nodes = 0;                                       // both: the loss summed over the nodes

  // The fields in one order (for an all-reduce, a checkpoint or Python), and back.
  template <class Self>
  static std::array<decltype(&std::declval<Self&>().correct), kFields> fields(Self& c) {
    return {&c.correct,     &c.labelled, &c.true_positives, &c.false_positives, &c.false_negatives, &c.topk_hits,
            &c.true_labels, &c.loss_sum, &c.nodes};
  }
  std::array<double, kFields> pack() const;
  static ScoreCounts unpack(std::span<const double> values);
  ScoreCounts& operator+=(const ScoreCounts& o);
};

// The counts of every rank of `world`, summed (collective).
ScoreCounts sum_over_ranks(const ScoreCounts& counts, const comm::Communicator& world);

// logits [n, C]; labels int64 [n] (accuracy) or float 0/1 [n, C] (micro-F1).
ScoreCounts count_scores(const torch::Tensor& logits, const torch::Tensor& labels, ScoreKind kind);
// count_scores() in two halves, so that a caller on a GPU can read the counts together with other
// values in one copy to the host: the counts that depend on the values, as a float64 tensor of
// score_value_count(kind) entries on the logits' device; and the ScoreCounts of those values read
// back (`rows` = logits.size(0), `classes` = logits.size(1)).
torch::Tensor score_values(const torch::Tensor& logits, const torch::Tensor& labels, ScoreKind kind);
std::int64_t score_value_count(ScoreKind kind);
ScoreCounts scores_from_values(std::span<const double> values, std::int64_t rows, std::int64_t classes, ScoreKind kind);
// Accuracy or micro-F1 in [0, 1]; NaN for an empty split (no node counted: MAG240M's test-dev).
double score(const ScoreCounts& counts, ScoreKind kind);
// Multi-label top-k micro-F1 in [0, 1].
double topk_micro_f1(const ScoreCounts& counts);
// The mean loss per node (0 when nothing was counted).
double mean_loss(const ScoreCounts& counts);

}  // namespace loom::scores
