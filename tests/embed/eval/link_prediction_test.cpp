#include "loom/embed/eval/link_prediction.hpp"

#include <algorithm>
#include <set>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "loom/core/error.hpp"
#include "loom/core/rng.hpp"
#include "loom/graph/build_csr.hpp"
#include "support/test_support.hpp"

namespace loom::embed::eval {
namespace {

// Two dense communities of 30 nodes joined by a few edges, plus a pendant chain 60-61-62.
graph::Csr community_graph(std::set<std::pair<std::int64_t, std::int64_t>>* edge_set = nullptr) {
  core::Rng rng(3);
  graph::EdgeList edges;
  edges.num_nodes = 63;
  auto add = [&](std::int64_t u, std::int64_t v) {
    edges.src.push_back(u);
    edges.dst.push_back(v);
    if (edge_set) edge_set->insert({std::min(u, v), std::max(u, v)});
  };
  for (std::int64_t c = 0; c < 2; ++c)
    for (std::int64_t u = 0; u < 30; ++u)
      for (std::int64_t v = u + 1; v < 30; ++v)
        if (rng.uniform() < 0.4) add(c * 30 + u, c * 30 + v);
  add(0, 30);
  add(5, 45);
  add(59, 60);
  add(60, 61);
  add(61, 62);
  graph::CsrBuildOptions opt;
  auto built = graph::build_csr(edges, opt);
  return graph::Csr::from_vectors(std::move(built.indptr), built.indices, 63);
}

int components(const graph::GraphData& g) {
  const auto n = g.num_rows();
  std::vector<int> seen(static_cast<std::size_t>(n), 0);
  int count = 0;
  for (std::int64_t s = 0; s < n; ++s) {
    if (seen[s]) continue;
    ++count;
    std::vector<std::int64_t> stack{s};
    seen[s] = 1;
    while (!stack.empty()) {
      const auto u = stack.back();
      stack.pop_back();
      for (auto e = g.indptr[u]; e < g.indptr[u + 1]; ++e)
        if (!seen[g.indices[e]]) seen[g.indices[e]] = 1, stack.push_back(g.indices[e]);
    }
  }
  return count;
}

TEST(LinkPrediction, SplitKeepsGraphConnectedAndHoldsOutHalfTheEdges) {
  std::set<std::pair<std::int64_t, std::int64_t>> edges;
  const auto csr = community_graph(&edges);
  const auto split = linkpred_split(csr, {});
  const auto m = static_cast<std::int64_t>(edges.size());
  EXPECT_EQ(split.total_edges, m);
  EXPECT_EQ(split.removed_edges, (m + 1) / 2);
  EXPECT_EQ(components(split.residual), 1);
  EXPECT_EQ(split.residual.num_rows(), 63);
  EXPECT_EQ(static_cast<std::int64_t>(split.residual.indices.size()), 2 * (m - split.removed_edges));

  // Positives are exactly the removed edges; negatives are distinct non-edges; halves balanced.
  std::set<std::pair<std::int64_t, std::int64_t>> residual, positives, negatives;
  for (std::int64_t u = 0; u < 63; ++u)
    for (auto e = split.residual.indptr[u]; e < split.residual.indptr[u + 1]; ++e)
      if (u < split.residual.indices[e]) residual.insert({u, split.residual.indices[e]});
  auto collect = [&](const std::vector<NodePair>& pairs, const std::vector<std::uint8_t>& labels) {
    std::int64_t pos = 0;
    for (std::size_t i = 0; i < pairs.size(); ++i) {
      ASSERT_LT(pairs[i].u, pairs[i].v);
      auto& into = labels[i] ? positives : negatives;
      EXPECT_TRUE(into.insert({pairs[i].u, pairs[i].v}).second);
      pos += labels[i];
    }
    EXPECT_EQ(2 * pos, static_cast<std::int64_t>(pairs.size()));
  };
  collect(split.train_pairs, split.train_labels);
  collect(split.test_pairs, split.test_labels);
  EXPECT_EQ(static_cast<std::int64_t>(positives.size()), split.removed_edges);
  EXPECT_EQ(negatives.size(), positives.size());
  for (const auto& p : positives) EXPECT_TRUE(edges.count(p) && !residual.count(p));
  for (const auto& p : negatives) EXPECT_FALSE(edges.count(p));
  EXPECT_EQ(residual.size() + positives.size(), edges.size());
  // The pendant chain's bridges can never be removed.
  EXPECT_TRUE(residual.count({60, 61}) && residual.count({61, 62}) && residual.count({59, 60}));

  const auto again = linkpred_split(csr, {});
  EXPECT_EQ(again.residual.indices, split.residual.indices);
}

TEST(LinkPrediction, TreeGraphCannotLoseEdges) {
  const auto path = graph::Csr::from_vectors({0, 1, 3, 4}, {1, 0, 2, 1}, 3);
  EXPECT_THROW(linkpred_split(path, {}), Error);
  const auto directed = graph::Csr::from_vectors({0, 1, 1}, {1}, 2);
  EXPECT_THROW(linkpred_split(directed, {}), Error);
  try {
    linkpred_split(path, {.remove_fraction = 1.5});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.argument(), "--remove-fraction");
  }
}

TEST(LinkPrediction, CommunityVectorsPredictLinksAndNoiseDoesNot) {
  const auto csr = community_graph();
  const auto split = linkpred_split(csr, {});
  NodeVectors vectors;
  vectors.num_nodes = 63;
  vectors.dim = 4;
  vectors.present.assign(63, 1);
  core::Rng rng(9);
  for (std::int64_t v = 0; v < 63; ++v) {
    const bool first = v < 30;  // community membership: same-community pairs have Hadamard > 0
    for (int j = 0; j < 4; ++j)
      vectors.data.push_back((j < 2 ? (first ? 1.0f : -1.0f) : 0.0f) + 0.1f * static_cast<float>(rng.normal()));
  }
  const auto good = evaluate_link_prediction(vectors, split, EdgeOperator::kHadamard, {});
  EXPECT_GT(good.auc, 0.8);
  EXPECT_EQ(good.skipped_pairs, 0);
  EXPECT_EQ(good.test_pairs + good.train_pairs,
            static_cast<std::int64_t>(split.train_pairs.size() + split.test_pairs.size()));
  for (auto& x : vectors.data) x = static_cast<float>(rng.normal());
  const auto noise = evaluate_link_prediction(vectors, split, EdgeOperator::kHadamard, {});
  EXPECT_NEAR(noise.auc, 0.5, 0.15);
  vectors.present[0] = 0;
  EXPECT_GE(evaluate_link_prediction(vectors, split, EdgeOperator::kL1, {}).skipped_pairs, 0);
  EXPECT_THROW(core::parse_enum(kEdgeOperatorNames, "dot", "--operator"), Error);
}

TEST(LinkPrediction, StoreSplitKeepsOriginalIds) {
  test::ScratchDir dir;
  graph::GraphData data;
  data.indptr = {0, 2, 4, 6, 8};
  data.indices = {1, 3, 0, 2, 1, 3, 0, 2};  // a 4-cycle
  data.orig_id = {100, 200, 300, 400};
  graph::write_graph_store(data, dir / "g", {});
  const auto split = linkpred_split(graph::GraphStore::open(dir / "g"), {.remove_fraction = 0.25});
  EXPECT_EQ(split.removed_edges, 1);
  EXPECT_EQ(split.residual.orig_id, data.orig_id);
  EXPECT_NO_THROW(graph::validate_graph_data(split.residual));
}

}  // namespace
}  // namespace loom::embed::eval
