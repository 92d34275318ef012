#include "loom/embed/eval/node_classification.hpp"

#include <vector>

#include <gtest/gtest.h>

#include "loom/core/error.hpp"
#include "loom/core/rng.hpp"

namespace loom::embed::eval {
namespace {

// n nodes, 3 classes; node v's vector is its class indicator scaled + noise (noise_sd).
void make_problem(std::int64_t n, double noise_sd, bool multi, NodeVectors& vectors, NodeLabels& labels) {
  core::Rng rng(11);
  vectors.num_nodes = labels.num_nodes = n;
  vectors.dim = 8;
  labels.num_classes = 3;
  labels.multi_label = multi;
  vectors.data.assign(static_cast<std::size_t>(n * 8), 0.0f);
  vectors.present.assign(static_cast<std::size_t>(n), 1);
  labels.matrix.assign(static_cast<std::size_t>(n * 3), 0);
  for (std::int64_t v = 0; v < n; ++v) {
    labels.matrix[v * 3 + v % 3] = 1;
    if (multi && v % 4 == 0) labels.matrix[v * 3 + (v + 1) % 3] = 1;
    for (int c = 0; c < 3; ++c)
      if (labels.matrix[v * 3 + c]) vectors.data[v * 8 + c] = 1.0f;
    for (int j = 0; j < 8; ++j) vectors.data[v * 8 + j] += static_cast<float>(noise_sd * rng.normal());
  }
}

TEST(NodeClassification, InformativeVectorsScoreNearOneAndNoiseNearChance) {
  NodeVectors vectors;
  NodeLabels labels;
  make_problem(300, 0.1, /*multi=*/true, vectors, labels);
  NodeClassOptions opt;
  opt.train_ratios = {0.2, 0.8};
  opt.repeats = 3;
  const auto good = evaluate_node_classification(vectors, labels, opt);
  ASSERT_EQ(good.ratios.size(), 2u);
  EXPECT_EQ(good.evaluated_nodes, 300);
  EXPECT_EQ(good.ratios[0].train_nodes, 60);
  EXPECT_EQ(good.ratios[1].test_nodes, 60);
  EXPECT_EQ(good.ratios[0].runs.size(), 3u);
  for (const auto& r : good.ratios) {
    EXPECT_GT(r.mean.micro, 0.95);
    EXPECT_GT(r.mean.macro, 0.95);
  }
  make_problem(300, 0.0, /*multi=*/false, vectors, labels);
  core::Rng rng(5);
  for (auto& x : vectors.data) x = static_cast<float>(rng.normal());  // vectors carry no signal
  const auto noise = evaluate_node_classification(vectors, labels, opt);
  EXPECT_LT(noise.ratios[1].mean.micro, 0.55);  // chance is 1/3
}

TEST(NodeClassification, SkipsUnlabeledNodesAndNodesWithoutVectors) {
  NodeVectors vectors;
  NodeLabels labels;
  make_problem(30, 0.1, /*multi=*/false, vectors, labels);
  std::fill_n(labels.matrix.begin(), 3, 0);  // node 0 unlabeled
  vectors.present[1] = 0;
  NodeClassOptions opt;
  opt.train_ratios = {0.5};
  opt.repeats = 1;
  const auto r = evaluate_node_classification(vectors, labels, opt);
  EXPECT_EQ(r.unlabeled_nodes, 1);
  EXPECT_EQ(r.missing_vectors, 1);
  EXPECT_EQ(r.evaluated_nodes, 28);
  EXPECT_NE(r.to_table().find("0.50"), std::string::npos);
  EXPECT_EQ(r.to_json()["ratios"][0]["train_nodes"], 14);
}

TEST(NodeClassification, BadRatiosAndRepeatsAreArgumentErrors) {
  NodeVectors vectors;
  NodeLabels labels;
  make_problem(30, 0.1, false, vectors, labels);
  NodeClassOptions opt;
  opt.train_ratios = {1.0};
  try {
    evaluate_node_classification(vectors, labels, opt);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.argument(), "--ratios");
  }
  opt.train_ratios = {0.5};
  opt.repeats = 0;
  EXPECT_THROW(evaluate_node_classification(vectors, labels, opt), Error);
  opt.repeats = 1;
  labels.num_nodes = 31;
  EXPECT_THROW(evaluate_node_classification(vectors, labels, opt), Error);
}

}  // namespace
}  // namespace loom::embed::eval
