#include "loom/embed/eval/metrics.hpp"

#include <vector>

#include <gtest/gtest.h>

#include "loom/core/error.hpp"
#include "loom/core/rng.hpp"

namespace loom::embed::eval {
namespace {

TEST(Metrics, F1OnHandMadeExample) {
  // 3 rows x 3 classes.
  const std::vector<std::uint8_t> truth{1, 0, 1,   // row 0: classes 0, 2
                                        0, 1, 0,   // row 1: class 1
                                        1, 0, 0};  // row 2: class 0
  const std::vector<std::uint8_t> pred{1, 1, 0,    // TP c0, FP c1, FN c2
                                       0, 1, 0,    // TP c1
                                       0, 0, 1};   // FN c0, FP c2
  // class 0: TP 1 FP 0 FN 1 -> 2/3; class 1: TP 1 FP 1 FN 0 -> 2/3; class 2: TP 0 FP 1 FN 1 -> 0.
  // micro: TP 2, FP 2, FN 2 -> 4 / 8.
  const auto f1 = f1_scores(truth, pred, 3);
  EXPECT_DOUBLE_EQ(f1.micro, 0.5);
  EXPECT_DOUBLE_EQ(f1.macro, (2.0 / 3 + 2.0 / 3 + 0.0) / 3);
}

TEST(Metrics, MacroF1LeavesOutClassesNeverTrueNorPredicted) {
  const std::vector<std::uint8_t> truth{1, 0, 0, 1};
  const std::vector<std::uint8_t> pred{1, 0, 0, 1};
  const auto f1 = f1_scores(truth, pred, 2);  // class 1 never occurs
  EXPECT_DOUBLE_EQ(f1.micro, 1.0);
  EXPECT_DOUBLE_EQ(f1.macro, 1.0);
}

TEST(Metrics, TopKPredictsAsManyClassesAsTheNodeHas) {
  const std::vector<double> scores{0.1, 0.9, 0.5, 0.7,   // row 0 has 2 true classes -> {1, 3}
                                   0.3, 0.2, 0.8, 0.1};  // row 1 has 1 -> {2}
  const std::vector<std::uint8_t> truth{1, 0, 1, 0, 1, 0, 0, 0};
  const auto pred = predict_top_k(scores, truth, 4);
  EXPECT_EQ(pred, (std::vector<std::uint8_t>{0, 1, 0, 1, 0, 0, 1, 0}));
}

TEST(Metrics, AucOfPerfectReversedTiedAndRandomScorers) {
  const std::vector<std::uint8_t> labels{0, 0, 1, 1, 0, 1};
  EXPECT_DOUBLE_EQ(roc_auc(std::vector<double>{0.1, 0.2, 0.8, 0.9, 0.3, 0.7}, labels), 1.0);
  EXPECT_DOUBLE_EQ(roc_auc(std::vector<double>{0.9, 0.8, 0.1, 0.2, 0.7, 0.3}, labels), 0.0);
  EXPECT_DOUBLE_EQ(roc_auc(std::vector<double>(6, 0.5), labels), 0.5);
  // One positive below one negative out of 3 x 3 pairs: 8/9.
  EXPECT_DOUBLE_EQ(roc_auc(std::vector<double>{0.1, 0.2, 0.8, 0.9, 0.75, 0.7}, labels), 8.0 / 9.0);

  core::Rng rng(7);
  std::vector<double> scores(20000);
  std::vector<std::uint8_t> random_labels(20000);
  for (std::size_t i = 0; i < scores.size(); ++i) {
    scores[i] = rng.uniform();
    random_labels[i] = static_cast<std::uint8_t>(rng.below(2));
  }
  EXPECT_NEAR(roc_auc(scores, random_labels), 0.5, 0.02);
  EXPECT_THROW(roc_auc(std::vector<double>{0.1, 0.2}, std::vector<std::uint8_t>{1, 1}), Error);
}

}  // namespace
}  // namespace loom::embed::eval
