// Scores of the embedding evaluations.
//  - f1_scores: micro-F1 (from TP/FP/FN pooled over classes) and macro-F1 (mean of per-class
//    2TP / (2TP + FP + FN)) of a predicted 0/1 label matrix against the truth. A class with no true
//    and no predicted rows has no defined F1 and is left out of the macro mean (scikit-learn would
//    count it as 0).
//  - predict_top_k: the DeepWalk protocol's multi-label prediction: each row gets its k
//    highest-scoring classes, k = its number of true classes (ties to the lower class id).
//  - roc_auc: area under the ROC curve = P(score of a random positive > random negative), ties
//    counting one half (average ranks).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace loom::embed::eval {

struct F1Scores {
  double micro = 0, macro = 0;
};

// truth and predicted are rows x num_classes 0/1 matrices (row-major).
F1Scores f1_scores(std::span<const std::uint8_t> truth, std::span<const std::uint8_t> predicted,
                   std::int64_t num_classes);

std::vector<std::uint8_t> predict_top_k(std::span<const double> scores, std::span<const std::uint8_t> truth,
                                        std::int64_t num_classes);

// labels[i] is 1 for a positive; throws Error unless both classes occur.
double roc_auc(std::span<const double> scores, std::span<const std::uint8_t> labels);

}  // namespace loom::embed::eval
