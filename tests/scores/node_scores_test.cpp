// Classification scores: accuracy, thresholded micro-F1 and the DeepWalk protocol's top-k
// micro-F1, checked on hand-computed cases; counts add up across batches.
#include "loom/scores/node_scores.hpp"

#include <gtest/gtest.h>

#include "loom/core/error.hpp"

namespace loom::scores {
namespace {

TEST(Scores, AccuracyCountsArgmaxHits) {
  const auto logits = torch::tensor({{2.0f, 1.0f}, {0.0f, 3.0f}, {5.0f, 1.0f}});
  const auto labels = torch::tensor({0, 1, 1}, torch::kInt64);
  const auto c = count_scores(logits, labels, ScoreKind::kAccuracy);
  EXPECT_DOUBLE_EQ(score(c, ScoreKind::kAccuracy), 2.0 / 3.0);
}

TEST(Scores, MultiLabelThresholdAndTopK) {
  // Row 0: true {0, 2}, logits rank 2 > 1 > 0 > 3 -> top-2 = {2, 1}: 1 hit; logit > 0 predicts {1, 2}.
  // Row 1: true {3}, logits rank 3 first -> top-1 = {3}: 1 hit; logit > 0 predicts {0, 3}.
  const auto logits = torch::tensor({{-0.5f, 1.0f, 2.0f, -3.0f}, {0.5f, -1.0f, -2.0f, 4.0f}});
  const auto labels = torch::tensor({{1.0f, 0.0f, 1.0f, 0.0f}, {0.0f, 0.0f, 0.0f, 1.0f}});
  const auto c = count_scores(logits, labels, ScoreKind::kMicroF1);
  // Threshold: tp = 2 (row 0: 2; row 1: 3), fp = 2 (row 0: 1; row 1: 0), fn = 1 (row 0: 0).
  EXPECT_DOUBLE_EQ(c.true_positives, 2);
  EXPECT_DOUBLE_EQ(c.false_positives, 2);
  EXPECT_DOUBLE_EQ(c.false_negatives, 1);
  EXPECT_DOUBLE_EQ(score(c, ScoreKind::kMicroF1), 4.0 / 7.0);
  EXPECT_DOUBLE_EQ(topk_micro_f1(c), 2.0 / 3.0);
  ScoreCounts twice = c;
  twice += c;
  EXPECT_DOUBLE_EQ(topk_micro_f1(twice), 2.0 / 3.0);
  EXPECT_DOUBLE_EQ(topk_micro_f1(ScoreCounts{}), 0.0);
}

TEST(Scores, ValuesReadInOneCopyGiveTheSameCounts) {
  const auto logits = torch::tensor({{2.0f, 1.0f}, {0.0f, 3.0f}, {5.0f, 1.0f}});
  const auto labels = torch::tensor({0, 1, 1}, torch::kInt64);
  const auto values = score_values(logits, labels, ScoreKind::kAccuracy);
  ASSERT_EQ(values.numel(), score_value_count(ScoreKind::kAccuracy));
  EXPECT_EQ(values.scalar_type(), torch::kDouble);
  const ScoreCounts c = scores_from_values({values.data_ptr<double>(), 2}, 3, 2, ScoreKind::kAccuracy);
  EXPECT_DOUBLE_EQ(c.correct, 2);
  EXPECT_DOUBLE_EQ(c.labelled, 3);
  EXPECT_DOUBLE_EQ(c.nodes, 3);
  const double nll = torch::nll_loss(torch::log_softmax(logits, 1), labels, {}, torch::Reduction::Sum).item<double>();
  EXPECT_DOUBLE_EQ(c.loss_sum, nll);
  EXPECT_EQ(c.pack(), count_scores(logits, labels, ScoreKind::kAccuracy).pack());
  // An empty batch counts nothing; values of the wrong length are refused.
  const auto none = score_values(torch::zeros({0, 4}), torch::zeros({0, 4}), ScoreKind::kMicroF1);
  EXPECT_EQ(none.numel(), score_value_count(ScoreKind::kMicroF1));
  EXPECT_EQ(scores_from_values({none.data_ptr<double>(), 6}, 0, 4, ScoreKind::kMicroF1).nodes, 0);
  EXPECT_THROW(scores_from_values({values.data_ptr<double>(), 1}, 3, 2, ScoreKind::kAccuracy), Error);
}

TEST(Scores, PackedCountsUnpackToTheSameFields) {
  ScoreCounts c;
  const auto fields = ScoreCounts::fields(c);
  for (std::size_t i = 0; i < fields.size(); ++i) *fields[i] = static_cast<double>(i + 1);
  const auto packed = c.pack();
  EXPECT_EQ(packed.front(), 1.0);
  EXPECT_EQ(packed.back(), static_cast<double>(ScoreCounts::kFields));
  EXPECT_EQ(ScoreCounts::unpack(packed).pack(), packed);
  EXPECT_EQ(ScoreCounts::unpack(packed).nodes, c.nodes);
  EXPECT_THROW(ScoreCounts::unpack(std::span<const double>(packed).first(3)), Error);
}

}  // namespace
}  // namespace loom::scores
