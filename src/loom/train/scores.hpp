// Classification scores summed over batches and ranks: accuracy for single-label graphs and
// micro-F1 (logit > 0 predicts a label) for multi-label graphs, plus the top-k micro-F1 of the
// DeepWalk protocol (each node predicts its k highest logits, k = its true label count; then
// precision = recall = F1), which `loom eval nodeclass` also reports, and the mean loss (cross
// entropy, or binary cross entropy averaged over labels). Counts are additive, so each rank
// counts its own nodes and one all-reduce combines them.
#pragma once

#include <array>
#include <cstdint>

#include <torch/torch.h>

namespace loom::train {

struct ScoreCounts {
  // single-label: correct, total; multi-label: true positives, false positives, false negatives,
  // top-k hits, true labels; then (both) the loss summed over nodes, and the nodes counted.
  std::array<double, 7> values{0, 0, 0, 0, 0, 0, 0};
  ScoreCounts& operator+=(const ScoreCounts& o) {
    for (std::size_t i = 0; i < values.size(); ++i) values[i] += o.values[i];
    return *this;
  }
};

// logits [n, C]; labels int64 [n] (single) or float 0/1 [n, C] (multi).
ScoreCounts count_scores(const torch::Tensor& logits, const torch::Tensor& labels, bool multi_label);
// Accuracy or micro-F1 in [0, 1] (0 when nothing was counted).
double score(const ScoreCounts& counts, bool multi_label);
// Multi-label top-k micro-F1 in [0, 1].
double topk_micro_f1(const ScoreCounts& counts);
// The mean loss per node (0 when nothing was counted).
double mean_loss(const ScoreCounts& counts);

}  // namespace loom::train
