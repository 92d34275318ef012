#include "loom/graph/generate/sbm.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "loom/core/error.hpp"
#include "loom/core/parallel.hpp"
#include "support/test_support.hpp"

namespace loom::graph::generate {
namespace {

SbmOptions small_sbm() {
  SbmOptions o;
  o.nodes = 6000;
  o.classes = 8;
  o.avg_degree = 12;
  o.feat_dim = 16;
  o.seed = 5;
  return o;
}

double edge_homophily(const GraphData& d) {
  std::int64_t same = 0;
  for (std::int64_t v = 0; v < d.num_rows(); ++v)
    for (auto e = d.indptr[v]; e < d.indptr[v + 1]; ++e) same += d.label[d.indices[e]] == d.label[v];
  return static_cast<double>(same) / static_cast<double>(d.indices.size());
}

// Share of `ids` whose feature row is nearest (squared distance) to its own class mean, with
// the class means estimated on the train split.
double nearest_class_mean_accuracy(const GraphData& d, const std::vector<float>& feat) {
  const std::int64_t f = d.feat_dim, c = d.num_classes;
  std::vector<double> mean(c * f, 0.0);
  std::vector<int> count(c, 0);
  for (auto v : d.splits.at("train")) {
    ++count[d.label[v]];
    for (std::int64_t j = 0; j < f; ++j) mean[d.label[v] * f + j] += feat[v * f + j];
  }
  for (std::int64_t k = 0; k < c; ++k)
    for (std::int64_t j = 0; j < f; ++j) mean[k * f + j] /= std::max(count[k], 1);
  std::int64_t correct = 0;
  const auto& test = d.splits.at("test");
  for (auto v : test) {
    std::int64_t best = 0;
    double best_dist = INFINITY;
    for (std::int64_t k = 0; k < c; ++k) {
      double dist = 0;
      for (std::int64_t j = 0; j < f; ++j) dist += std::pow(feat[v * f + j] - mean[k * f + j], 2);
      if (dist < best_dist) best_dist = dist, best = k;
    }
    correct += best == d.label[v];
  }
  return static_cast<double>(correct) / static_cast<double>(test.size());
}

TEST(Sbm, SameGraphAtAnyThreadCount) {
  auto o = small_sbm();
  o.degree_skew = 2.5;
  core::set_num_threads(1);
  const GraphData one = generate_sbm(o);
  core::set_num_threads(2);
  const GraphData two = generate_sbm(o);
  EXPECT_EQ(one.indptr, two.indptr);
  EXPECT_EQ(one.indices, two.indices);
  EXPECT_EQ(one.feat, two.feat);
  EXPECT_EQ(one.label, two.label);
  EXPECT_EQ(one.splits, two.splits);
}

TEST(Sbm, SeedChangesTheGraph) {
  auto o = small_sbm();
  const GraphData a = generate_sbm(o);
  o.seed = 6;
  const GraphData b = generate_sbm(o);
  EXPECT_NE(a.indices, b.indices);
}

TEST(Sbm, SymmetricWithoutLoopsOrDuplicates) {
  const GraphData d = generate_sbm(small_sbm());
  ASSERT_EQ(d.num_rows(), 6000);
  for (std::int64_t v = 0; v < d.num_rows(); ++v)
    for (auto e = d.indptr[v]; e < d.indptr[v + 1]; ++e) {
      const auto u = d.indices[e];
      ASSERT_NE(u, v);
      if (e > d.indptr[v]) {
        ASSERT_LT(d.indices[e - 1], u);
      }
      ASSERT_TRUE(std::binary_search(d.indices.begin() + d.indptr[u], d.indices.begin() + d.indptr[u + 1], v));
    }
}

TEST(Sbm, AverageDegreeAndHomophilyAsRequested) {
  for (double h : {0.8, 0.3}) {
    auto o = small_sbm();
    o.homophily = h;
    const GraphData d = generate_sbm(o);
    const double avg = static_cast<double>(d.indices.size()) / static_cast<double>(d.num_rows());
    EXPECT_NEAR(avg, 12.0, 0.3) << "homophily " << h;
    EXPECT_NEAR(edge_homophily(d), h, 0.02);
    EXPECT_NEAR(d.provenance["edge_homophily"].get<double>(), edge_homophily(d), 1e-12);
  }
}

TEST(Sbm, ClassesAreBalancedAndLabelled) {
  const GraphData d = generate_sbm(small_sbm());
  EXPECT_EQ(d.num_classes, 8);
  std::vector<int> count(8, 0);
  for (auto l : d.label) ++count.at(l);
  for (int c : count) EXPECT_EQ(c, 750);
}

TEST(Sbm, SplitsHaveRequestedSizesAndCoverAllNodes) {
  const GraphData d = generate_sbm(small_sbm());
  EXPECT_EQ(d.splits.at("train").size(), 480u);  // 0.08 * 6000
  EXPECT_EQ(d.splits.at("valid").size(), 96u);   // 0.016 * 6000
  EXPECT_EQ(d.splits.at("test").size(), 6000u - 480 - 96);
  std::vector<std::int64_t> all;
  for (const auto& [name, ids] : d.splits) all.insert(all.end(), ids.begin(), ids.end());
  std::sort(all.begin(), all.end());
  for (std::int64_t i = 0; i < 6000; ++i) ASSERT_EQ(all[i], i);
}

TEST(Sbm, DegreeSkewGivesHeavyTail) {
  auto o = small_sbm();
  auto max_degree = [](const GraphData& d) {
    std::int64_t m = 0;
    for (std::int64_t v = 0; v < d.num_rows(); ++v) m = std::max(m, d.indptr[v + 1] - d.indptr[v]);
    return m;
  };
  EXPECT_LT(max_degree(generate_sbm(o)), 3 * 12);
  o.degree_skew = 2.2;
  EXPECT_GT(max_degree(generate_sbm(o)), 10 * 12);
}

TEST(Sbm, FeaturesAloneAreMiddlingAndNeighbourAveragingHelps) {
  SbmOptions o;
  o.nodes = 8000;
  o.classes = 20;
  o.avg_degree = 15;
  o.feat_dim = 64;
  o.train = 0.3;
  const GraphData d = generate_sbm(o);
  const double features_alone = nearest_class_mean_accuracy(d, d.feat);
  // One round of mean aggregation over the node and its neighbours, as a GNN layer would.
  std::vector<float> mean(d.feat.size());
  for (std::int64_t v = 0; v < d.num_rows(); ++v) {
    const double deg = static_cast<double>(d.indptr[v + 1] - d.indptr[v] + 1);
    for (std::int64_t j = 0; j < o.feat_dim; ++j) {
      double s = d.feat[v * o.feat_dim + j];
      for (auto e = d.indptr[v]; e < d.indptr[v + 1]; ++e) s += d.feat[d.indices[e] * o.feat_dim + j];
      mean[v * o.feat_dim + j] = static_cast<float>(s / deg);
    }
  }
  const double with_graph = nearest_class_mean_accuracy(d, mean);
  EXPECT_GT(features_alone, 0.4);
  EXPECT_LT(features_alone, 0.85);
  EXPECT_GT(with_graph, features_alone + 0.1);
}

void expect_argument_error(const SbmOptions& o, const std::string& argument) {
  try {
    check(o);
    FAIL() << "accepted bad " << argument;
  } catch (const Error& e) {
    EXPECT_EQ(e.argument(), argument) << e.what();
  }
}

TEST(Sbm, RejectsBadOptionsNamingTheArgument) {
  auto o = small_sbm();
  o.classes = 7000;
  expect_argument_error(o, "--nodes");
  o = small_sbm();
  o.homophily = 1.5;
  expect_argument_error(o, "--homophily");
  o.homophily = -0.1;
  expect_argument_error(o, "--homophily");
  o = small_sbm();
  o.avg_degree = 0;
  expect_argument_error(o, "--avg-degree");
  o = small_sbm();
  o.degree_skew = 1.5;
  expect_argument_error(o, "--degree-skew");
  o = small_sbm();
  o.feat_dim = 0;
  expect_argument_error(o, "--feat-dim");
  o = small_sbm();
  o.train = 0.9;
  o.valid = 0.2;
  expect_argument_error(o, "--valid");
  o = small_sbm();
  o.classes = 0;
  expect_argument_error(o, "--classes");
}

// generate_sbm_store writes out of core (edges drawn again per pass, feature rows streamed); its
// store equals the in-memory generator's, byte for byte, in either dtype and at any memory size.
TEST(Sbm, TheStoreWrittenOutOfCoreIsByteIdenticalToTheInMemoryOne) {
  for (const format::DType dtype : {format::DType::kFloat32, format::DType::kFloat16}) {
    for (const std::int64_t memory : {std::int64_t{32} << 10, std::int64_t{1} << 30}) {
      test::ScratchDir dir;
      StoreWriteOptions write;
      write.feat_dtype = dtype;
      write_graph_store(generate_sbm(small_sbm()), dir / "memory", write);
      write.memory_bytes = memory;
      generate_sbm_store(small_sbm(), dir / "stream", write);
      EXPECT_EQ(test::expect_same_store(dir / "memory", dir / "stream"), 8) << "memory " << memory;
    }
  }
}

}  // namespace
}  // namespace loom::graph::generate
