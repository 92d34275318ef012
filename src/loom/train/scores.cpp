#include "loom/train/scores.hpp"

namespace loom::train {

ScoreCounts count_scores(const torch::Tensor& logits, const torch::Tensor& labels, bool multi_label) {
  ScoreCounts c;
  if (logits.size(0) == 0) return c;
  const auto sum = torch::Reduction::Sum;
  c.values[5] = multi_label ? torch::binary_cross_entropy_with_logits(logits, labels, {}, {}, sum).item<double>() /
                                  static_cast<double>(logits.size(1))
                            : torch::nll_loss(torch::log_softmax(logits, 1), labels, {}, sum).item<double>();
  c.values[6] = static_cast<double>(logits.size(0));
  if (multi_label) {
    const auto predicted = logits.gt(0);
    const auto truth = labels.gt(0.5);
    c.values[0] = static_cast<double>((predicted & truth).sum().item<std::int64_t>());
    c.values[1] = static_cast<double>((predicted & ~truth).sum().item<std::int64_t>());
    c.values[2] = static_cast<double>((~predicted & truth).sum().item<std::int64_t>());
    // Rank of every logit within its row (0 = highest); the top k = |true labels| are predicted.
    const auto order = logits.argsort(1, /*descending=*/true);
    const auto rank = torch::empty_like(order).scatter_(
        1, order, torch::arange(logits.size(1), order.options()).expand_as(order).contiguous());
    const auto k = truth.sum(1, /*keepdim=*/true);
    c.values[3] = static_cast<double>((rank.lt(k) & truth).sum().item<std::int64_t>());
    c.values[4] = static_cast<double>(k.sum().item<std::int64_t>());
  } else {
    c.values[0] = static_cast<double>(logits.argmax(1).eq(labels).sum().item<std::int64_t>());
    c.values[1] = static_cast<double>(logits.size(0));
  }
  return c;
}

double score(const ScoreCounts& c, bool multi_label) {
  if (multi_label) {
    const double denom = 2 * c.values[0] + c.values[1] + c.values[2];
    return denom > 0 ? 2 * c.values[0] / denom : 0.0;
  }
  return c.values[1] > 0 ? c.values[0] / c.values[1] : 0.0;
}

double topk_micro_f1(const ScoreCounts& c) { return c.values[4] > 0 ? c.values[3] / c.values[4] : 0.0; }

double mean_loss(const ScoreCounts& c) { return c.values[6] > 0 ? c.values[5] / c.values[6] : 0.0; }

}  // namespace loom::train
