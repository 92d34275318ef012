// Classification scores summed over batches and ranks: accuracy for single-label graphs and
// micro-F1 (logit > 0 predicts a label) for multi-label graphs. Counts are additive, so each
// rank counts its own nodes and one all-reduce combines them.
#pragma once

#include <array>
#include <cstdint>

#include <torch/torch.h>

namespace loom::train {

struct ScoreCounts {
  // single-label: correct, total; multi-label: true positives, false positives, false negatives
  std::array<double, 3> values{0, 0, 0};
  ScoreCounts& operator+=(const ScoreCounts& o) {
    for (int i = 0; i < 3; ++i) values[i] += o.values[i];
    return *this;
  }
};

// logits [n, C]; labels int64 [n] (single) or float 0/1 [n, C] (multi).
ScoreCounts count_scores(const torch::Tensor& logits, const torch::Tensor& labels, bool multi_label);
// Accuracy or micro-F1 in [0, 1] (0 when nothing was counted).
double score(const ScoreCounts& counts, bool multi_label);

}  // namespace loom::train
