#include "loom/embed/eval/metrics.hpp"

#include <algorithm>
#include <numeric>

#include "loom/core/error.hpp"

namespace loom::embed::eval {

F1Scores f1_scores(std::span<const std::uint8_t> truth, std::span<const std::uint8_t> predicted,
                   std::int64_t num_classes) {
  LOOM_CHECK(
      num_classes > 0 && truth.size() == predicted.size() && truth.size() % static_cast<std::size_t>(num_classes) == 0,
      "F1: truth ({}) and prediction ({}) are not matrices of {} classes", truth.size(), predicted.size(), num_classes);
  const auto k = static_cast<std::size_t>(num_classes);
  std::vector<std::int64_t> tp(k, 0), fp(k, 0), fn(k, 0);
  for (std::size_t i = 0; i < truth.size(); ++i) {
    const std::size_t c = i % k;
    const bool t = truth[i] != 0, p = predicted[i] != 0;
    tp[c] += t && p;
    fp[c] += !t && p;
    fn[c] += t && !p;
  }
  std::int64_t all_tp = 0, all_fp = 0, all_fn = 0, defined = 0;
  double macro = 0;
  for (std::size_t c = 0; c < k; ++c) {
    all_tp += tp[c];
    all_fp += fp[c];
    all_fn += fn[c];
    const std::int64_t denom = 2 * tp[c] + fp[c] + fn[c];
    if (denom == 0) continue;
    macro += 2.0 * static_cast<double>(tp[c]) / static_cast<double>(denom);
    ++defined;
  }
  F1Scores scores;
  const std::int64_t denom = 2 * all_tp + all_fp + all_fn;
  scores.micro = denom > 0 ? 2.0 * static_cast<double>(all_tp) / static_cast<double>(denom) : 0.0;
  scores.macro = defined > 0 ? macro / static_cast<double>(defined) : 0.0;
  return scores;
}

std::vector<std::uint8_t> predict_top_k(std::span<const double> scores, std::span<const std::uint8_t> truth,
                                        std::int64_t num_classes) {
  LOOM_CHECK(
      num_classes > 0 && scores.size() == truth.size() && truth.size() % static_cast<std::size_t>(num_classes) == 0,
      "top-k prediction: scores ({}) and truth ({}) are not matrices of {} classes", scores.size(), truth.size(),
      num_classes);
  const auto k = static_cast<std::size_t>(num_classes);
  const std::size_t rows = truth.size() / k;
  std::vector<std::uint8_t> predicted(truth.size(), 0);
  std::vector<std::size_t> order(k);
  for (std::size_t r = 0; r < rows; ++r) {
    const auto* s = scores.data() + r * k;
    const auto count = static_cast<std::size_t>(std::count_if(truth.begin() + static_cast<std::ptrdiff_t>(r * k),
                                                              truth.begin() + static_cast<std::ptrdiff_t>((r + 1) * k),
                                                              [](std::uint8_t v) { return v != 0; }));
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(count), order.end(),
                      [&](std::size_t a, std::size_t b) { return s[a] > s[b] || (s[a] == s[b] && a < b); });
    for (std::size_t j = 0; j < count; ++j) predicted[r * k + order[j]] = 1;
  }
  return predicted;
}

double roc_auc(std::span<const double> scores, std::span<const std::uint8_t> labels) {
  LOOM_CHECK(scores.size() == labels.size(), "AUC: {} scores for {} labels", scores.size(), labels.size());
  std::vector<std::size_t> order(scores.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return scores[a] < scores[b]; });
  // Sum of the (average, 1-based) ranks of the positives: Mann-Whitney U.
  double positive_rank_sum = 0;
  std::int64_t positives = 0;
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j < order.size() && scores[order[j]] == scores[order[i]]) ++j;
    const double rank = 0.5 * static_cast<double>(i + 1 + j);  // mean of ranks i+1 .. j
    for (std::size_t t = i; t < j; ++t) {
      if (labels[order[t]]) {
        positive_rank_sum += rank;
        ++positives;
      }
    }
    i = j;
  }
  const auto negatives = static_cast<std::int64_t>(labels.size()) - positives;
  LOOM_CHECK(positives > 0 && negatives > 0, "AUC needs positive and negative examples ({} and {})", positives,
             negatives);
  const double p = static_cast<double>(positives), n = static_cast<double>(negatives);
  return (positive_rank_sum - p * (p + 1) / 2) / (p * n);
}

}  // namespace loom::embed::eval
