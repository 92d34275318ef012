// Link prediction's parts: link batches (seeds, targets,
// negatives, cycling, determinism), and the held-out split (fractions, the message graph without
// the held-out edges, negatives that are no edges). The same split on any partition: mpi tests.
#include <algorithm>
#include <cmath>
#include <set>

#include <gtest/gtest.h>

#include "loom/core/error.hpp"
#include "loom/graph/generate/sbm.hpp"
#include "loom/loader/link_batches.hpp"
#include "loom/train/minibatch/link_options.hpp"
#include "loom/loader/link_split.hpp"
#include "support/single_rank_world.hpp"
#include "support/test_support.hpp"

namespace loom::train {
namespace {

loader::LinkPairs edges(std::initializer_list<std::pair<std::int64_t, std::int64_t>> list) {
  loader::LinkPairs p;
  for (const auto& [u, v] : list) p.add(u, v, 1.0F);
  return p;
}

TEST(LinkBatches, StepsHoldTheirPairsAsRowsOfSortedDistinctSeeds) {
  const graph::Csr g = graph::Csr::from_vectors({0, 1, 2, 3, 4, 5, 6}, {1, 0, 3, 2, 5, 4}, 6);
  const loader::NegativeSampler negatives(g, loader::NegativeSampling::kUniform);
  const loader::LinkPairs positives = edges({{0, 1}, {2, 3}, {4, 5}});
  const loader::LinkEpochOptions o{.batch_size = 2, .negative_ratio = 1.0, .drop_positive_edges = true, .run_seed = 3};
  const loader::LinkEpochPlan plan = loader::plan_link_epoch(positives, negatives, loader::link_steps(3, 2), o, 0, 0);
  ASSERT_EQ(plan.steps.size(), 2U);
  std::multiset<std::pair<std::int64_t, std::int64_t>> seen;
  for (std::size_t s = 0; s < plan.steps.size(); ++s) {
    const auto& seeds = plan.steps[s].seeds;
    const loader::LinkTargets& t = plan.targets[s];
    EXPECT_TRUE(std::is_sorted(seeds.begin(), seeds.end()));
    EXPECT_EQ(std::adjacent_find(seeds.begin(), seeds.end()), seeds.end());
    ASSERT_EQ(t.label.size(), 4U);  // 2 positives and 2 negatives
    EXPECT_EQ(std::count(t.label.begin(), t.label.end(), 1.0F), 2);
    for (std::size_t i = 0; i < t.label.size(); ++i) {
      if (t.label[i] == 1.0F) seen.insert({seeds[t.src_row[i]], seeds[t.dst_row[i]]});
    }
    EXPECT_EQ(plan.steps[s].dropped_pairs.size(), 4U);  // the two positives, as pairs
  }
  // 4 positive slots over 3 edges: each edge at least once (the second step cycles).
  for (const auto& e : {std::pair<std::int64_t, std::int64_t>{0, 1}, {2, 3}, {4, 5}}) EXPECT_GE(seen.count(e), 1U);
  // The same plan for the same (seed, epoch, rank); another epoch is shuffled afresh.
  const loader::LinkEpochPlan again = loader::plan_link_epoch(positives, negatives, 2, o, 0, 0);
  EXPECT_EQ(again.steps[0].seeds, plan.steps[0].seeds);
  EXPECT_EQ(again.targets[1].dst_row, plan.targets[1].dst_row);
}

TEST(LinkBatches, DegreeNegativesNeverDrawNodesWithoutEdges) {
  // Nodes 0..3 linked in a path, 4 and 5 isolated.
  const graph::Csr g = graph::Csr::from_vectors({0, 1, 3, 5, 6, 6, 6}, {1, 0, 2, 1, 3, 2}, 6);
  const loader::NegativeSampler degree(g, loader::NegativeSampling::kDegree);
  core::Rng rng(5);
  std::set<std::int64_t> drawn;
  for (int i = 0; i < 2000; ++i) drawn.insert(degree.draw(rng));
  EXPECT_EQ(drawn, (std::set<std::int64_t>{0, 1, 2, 3}));
  const loader::NegativeSampler uniform(g, loader::NegativeSampling::kUniform);
  drawn.clear();
  for (int i = 0; i < 2000; ++i) drawn.insert(uniform.draw(rng));
  EXPECT_EQ(drawn.size(), 6U);
}

TEST(LinkBatches, EvaluationBatchesKeepEveryPairOnceWithItsLabel) {
  loader::LinkPairs pairs = edges({{0, 1}, {2, 3}, {4, 5}});
  pairs.add(0, 5, 0.0F);
  const loader::LinkEpochPlan plan = loader::eval_link_batches(pairs, 3, 3, 1);
  ASSERT_EQ(plan.targets.size(), 3U);
  EXPECT_EQ(plan.targets[0].label.size(), 3U);
  EXPECT_EQ(plan.targets[1].label, std::vector<float>{0.0F});
  EXPECT_TRUE(plan.targets[2].label.empty());
  EXPECT_TRUE(plan.steps[2].seeds.empty());
}

class LinkSplitTest : public ::testing::Test {
 protected:
  static std::string make_store(const test::ScratchDir& dir) {
    graph::generate::SbmOptions o;
    o.nodes = 600;
    o.classes = 3;
    o.avg_degree = 10;
    o.feat_dim = 8;
    o.seed = 2;
    const std::string path = dir / "g";
    graph::generate::generate_sbm_store(o, path, {});
    return path;
  }
};

std::set<std::pair<std::int64_t, std::int64_t>> positive_pairs(const loader::LinkPairs& p) {
  std::set<std::pair<std::int64_t, std::int64_t>> out;
  for (std::size_t i = 0; i < p.size(); ++i)
    if (p.label[i] == 1.0F) out.insert({std::min(p.src[i], p.dst[i]), std::max(p.src[i], p.dst[i])});
  return out;
}

TEST_F(LinkSplitTest, HeldOutEdgesLeaveTheMessageGraphAndNegativesAreNoEdges) {
  const test::ScratchDir dir;
  const loader::TrainingData data =
      loader::open_training_data(make_store(dir), testing::single_rank_world(), loader::DataUse::kLinks);
  const graph::Csr& whole = data.topology.csr();
  const loader::LinkSplit split =
      loader::split_links(data, {.valid = 0.1, .test = 0.2, .eval_negatives = 3, .seed = 4});
  const auto undirected = static_cast<double>(whole.num_edges()) / 2.0;
  const auto valid = positive_pairs(split.valid), test = positive_pairs(split.test);
  EXPECT_NEAR(static_cast<double>(valid.size()) / undirected, 0.1, 0.03);
  EXPECT_NEAR(static_cast<double>(test.size()) / undirected, 0.2, 0.03);
  EXPECT_EQ(split.valid.size(), 4 * valid.size());  // each positive and its 3 negatives
  EXPECT_EQ(static_cast<double>(split.train.size() + valid.size() + test.size()), undirected);
  ASSERT_TRUE(split.message_graph.has_value());
  EXPECT_EQ(split.message_graph->num_edges(), 2 * static_cast<std::int64_t>(split.train.size()));
  const auto is_edge = [](const graph::Csr& g, std::int64_t u, std::int64_t v) {
    return g.visit([&](auto view) {
      const auto n = view.neighbors(u);
      return std::find(n.begin(), n.end(), v) != n.end();
    });
  };
  for (const auto& [u, v] : test) {
    EXPECT_FALSE(is_edge(*split.message_graph, u, v));
    EXPECT_FALSE(is_edge(*split.message_graph, v, u));
  }
  for (std::size_t i = 0; i < split.test.size(); ++i) {
    if (split.test.label[i] == 1.0F) continue;
    EXPECT_NE(split.test.src[i], split.test.dst[i]);
    EXPECT_FALSE(is_edge(whole, split.test.src[i], split.test.dst[i]));
  }
  LinkOptions bad;
  bad.split = {.valid = 0.6, .test = 0.5};
  EXPECT_THROW(check_link_options(bad), Error);
  const loader::LinkSplit none = loader::split_links(data, {.valid = 0, .test = 0});
  EXPECT_FALSE(none.message_graph.has_value());
  EXPECT_EQ(static_cast<double>(none.train.size()), undirected);
}

}  // namespace
}  // namespace loom::train
