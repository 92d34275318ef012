#include "loom/scores/node_scores.hpp"

#include <limits>

#include "loom/core/error.hpp"

namespace loom::scores {

std::int64_t score_value_count(ScoreKind kind) { return kind == ScoreKind::kMicroF1 ? 6 : 2; }

torch::Tensor score_values(const torch::Tensor& logits, const torch::Tensor& labels, ScoreKind kind) {
  const auto sum = torch::Reduction::Sum;
  const auto as_double = [](const torch::Tensor& t) { return t.to(torch::kDouble).reshape({1}); };
  if (logits.size(0) == 0) return torch::zeros({score_value_count(kind)}, logits.options().dtype(torch::kDouble));
  if (kind != ScoreKind::kMicroF1)
    return torch::cat({as_double(torch::nll_loss(torch::log_softmax(logits, 1), labels, {}, sum)),
                       as_double(logits.argmax(1).eq(labels).sum())});
  const auto predicted = logits.gt(0);
  const auto truth = labels.gt(0.5);
  // Rank of every logit within its row (0 = highest); the top k = |true labels| are predicted.
  const auto order = logits.argsort(1, /*descending=*/true);
  const auto rank = torch::empty_like(order).scatter_(
      1, order, torch::arange(logits.size(1), order.options()).expand_as(order).contiguous());
  const auto k = truth.sum(1, /*keepdim=*/true);
  return torch::cat({as_double(torch::binary_cross_entropy_with_logits(logits, labels, {}, {}, sum)),
                     as_double((predicted & truth).sum()), as_double((predicted & ~truth).sum()),
                     as_double((~predicted & truth).sum()), as_double((rank.lt(k) & truth).sum()), as_double(k.sum())});
}

ScoreCounts scores_from_values(std::span<const double> values, std::int64_t rows, std::int64_t classes,
                               ScoreKind kind) {
  LOOM_CHECK(static_cast<std::int64_t>(values.size()) == score_value_count(kind), "score values: want {}, got {}",
             score_value_count(kind), values.size());
  ScoreCounts c;
  if (rows == 0) return c;
  c.nodes = static_cast<double>(rows);
  if (kind != ScoreKind::kMicroF1) {
    c.loss_sum = values[0];
    c.correct = values[1];
    c.labelled = static_cast<double>(rows);
    return c;
  }
  c.loss_sum = values[0] / static_cast<double>(classes);
  c.true_positives = values[1];
  c.false_positives = values[2];
  c.false_negatives = values[3];
  c.topk_hits = values[4];
  c.true_labels = values[5];
  return c;
}

ScoreCounts count_scores(const torch::Tensor& logits, const torch::Tensor& labels, ScoreKind kind) {
  const torch::Tensor values = score_values(logits, labels, kind).cpu().contiguous();
  return scores_from_values({values.data_ptr<double>(), static_cast<std::size_t>(values.numel())}, logits.size(0),
                            logits.size(1), kind);
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

}  // namespace loom::scores
