#include "loom/train/scores.hpp"

#include <limits>

#include "loom/core/error.hpp"

namespace loom::train {

ScoreCounts count_scores(const torch::Tensor& logits, const torch::Tensor& labels, ScoreKind kind) {
  const bool several_labels = kind == ScoreKind::kMicroF1;
  ScoreCounts c;
  if (logits.size(0) == 0) return c;
  const auto sum = torch::Reduction::Sum;
  c.loss_sum = several_labels ? torch::binary_cross_entropy_with_logits(logits, labels, {}, {}, sum).item<double>() /
                                    static_cast<double>(logits.size(1))
                              : torch::nll_loss(torch::log_softmax(logits, 1), labels, {}, sum).item<double>();
  c.nodes = static_cast<double>(logits.size(0));
  if (several_labels) {
    const auto predicted = logits.gt(0);
    const auto truth = labels.gt(0.5);
    c.true_positives = static_cast<double>((predicted & truth).sum().item<std::int64_t>());
    c.false_positives = static_cast<double>((predicted & ~truth).sum().item<std::int64_t>());
    c.false_negatives = static_cast<double>((~predicted & truth).sum().item<std::int64_t>());
    // Rank of every logit within its row (0 = highest); the top k = |true labels| are predicted.
    const auto order = logits.argsort(1, /*descending=*/true);
    const auto rank = torch::empty_like(order).scatter_(
        1, order, torch::arange(logits.size(1), order.options()).expand_as(order).contiguous());
    const auto k = truth.sum(1, /*keepdim=*/true);
    c.topk_hits = static_cast<double>((rank.lt(k) & truth).sum().item<std::int64_t>());
    c.true_labels = static_cast<double>(k.sum().item<std::int64_t>());
  } else {
    c.correct = static_cast<double>(logits.argmax(1).eq(labels).sum().item<std::int64_t>());
    c.labelled = static_cast<double>(logits.size(0));
  }
  return c;
}

std::array<double, ScoreCounts::kFields> ScoreCounts::pack() const {
  std::array<double, kFields> values{};
  const auto mine = fields(*this);
  for (std::size_t i = 0; i < kFields; ++i) values[i] = *mine[i];
  return values;
}

ScoreCounts ScoreCounts::unpack(std::span<const double> values) {
  LOOM_CHECK(values.size() == kFields, "score counts: want {} values, got {}", kFields, values.size());
  ScoreCounts c;
  const auto out = fields(c);
  for (std::size_t i = 0; i < kFields; ++i) *out[i] = values[i];
  return c;
}

ScoreCounts& ScoreCounts::operator+=(const ScoreCounts& o) {
  const auto mine = fields(*this);
  const auto theirs = fields(o);
  for (std::size_t i = 0; i < kFields; ++i) *mine[i] += *theirs[i];
  return *this;
}

ScoreCounts sum_over_ranks(const ScoreCounts& counts, const comm::Communicator& world) {
  auto values = counts.pack();
  world.allreduce_sum(values, comm::Channel::control);
  return ScoreCounts::unpack(values);
}

double score(const ScoreCounts& c, ScoreKind kind) {
  if (c.nodes == 0 && c.labelled == 0) return std::numeric_limits<double>::quiet_NaN();  // an empty split
  if (kind == ScoreKind::kMicroF1) {
    const double denom = 2 * c.true_positives + c.false_positives + c.false_negatives;
    return denom > 0 ? 2 * c.true_positives / denom : 0.0;
  }
  return c.labelled > 0 ? c.correct / c.labelled : 0.0;
}

double topk_micro_f1(const ScoreCounts& c) { return c.true_labels > 0 ? c.topk_hits / c.true_labels : 0.0; }

double mean_loss(const ScoreCounts& c) { return c.nodes > 0 ? c.loss_sum / c.nodes : 0.0; }

}  // namespace loom::train
