#include "loom/embed/eval/graph_embedding.hpp"

#include <filesystem>
#include <vector>

#include <gtest/gtest.h>

#include "loom/core/error.hpp"
#include "loom/core/rng.hpp"
#include "loom/embed/eval/linkpred_protocol.hpp"
#include "support/test_support.hpp"

namespace loom::embed::eval {
namespace {

// Two communities of 40 nodes (dense inside, 3 edges across), labelled by community, with
// original ids 1000 + 7 * row.
graph::GraphData two_communities() {
  core::Rng rng(5);
  std::vector<std::vector<std::int64_t>> adj(80);
  auto add = [&](std::int64_t u, std::int64_t v) {
    adj[u].push_back(v);
    adj[v].push_back(u);
  };
  for (std::int64_t c = 0; c < 2; ++c)
    for (std::int64_t u = 0; u < 40; ++u)
      for (std::int64_t v = u + 1; v < 40; ++v)
        if (rng.uniform() < 0.25) add(c * 40 + u, c * 40 + v);
  add(0, 40);
  add(10, 50);
  add(20, 60);
  graph::GraphData g;
  g.indptr.push_back(0);
  for (auto& row : adj) {
    std::sort(row.begin(), row.end());
    g.indices.insert(g.indices.end(), row.begin(), row.end());
    g.indptr.push_back(static_cast<std::int64_t>(g.indices.size()));
    g.label.push_back(static_cast<std::int64_t>(g.label.size() / 40));
    g.orig_id.push_back(1000 + 7 * static_cast<std::int64_t>(g.orig_id.size()));
  }
  g.num_classes = 2;
  return g;
}

GraphEmbedOptions small_options() {
  GraphEmbedOptions o;
  o.walks.walks_per_node = 10;
  o.walks.length = 20;
  o.sgns.dim = 16;
  o.sgns.window = 5;
  o.sgns.epochs = 2;
  o.sgns.threads = 1;
  o.progress = false;
  return o;
}

TEST(GraphEmbedding, DeepWalkVectorsSeparateCommunitiesAndAreKeyedByOriginalIds) {
  test::ScratchDir dir;
  graph::write_graph_store(two_communities(), dir / "g", {});
  EmbedGraphOptions o;
  o.store = dir / "g";
  o.output = dir / "emb.txt";
  o.graph = small_options();
  const auto r = run_embed_graph(o);
  EXPECT_EQ(r.vectors, 80);
  EXPECT_EQ(r.walk_steps, 80 * 10 * 19);

  const auto emb = read_embeddings(o.output);
  EXPECT_EQ(emb.dim, 16);
  EXPECT_NE(std::find(emb.words.begin(), emb.words.end(), "1553"), emb.words.end());  // row 79
  const auto store = graph::GraphStore::open(o.store);
  const auto aligned = align_to_store(emb, store);
  EXPECT_EQ(aligned.matched, 80);
  EXPECT_EQ(aligned.unknown_keys, 0);
  NodeClassOptions nc;
  nc.train_ratios = {0.5};
  nc.repeats = 2;
  const auto f1 = evaluate_node_classification(aligned.vectors, labels_from_store(store), nc);
  EXPECT_GT(f1.ratios[0].mean.micro, 0.9);
}

TEST(GraphEmbedding, BadOptionsFailBeforeWritingAnything) {
  test::ScratchDir dir;
  graph::write_graph_store(two_communities(), dir / "g", {});
  EmbedGraphOptions o;
  o.store = dir / "g";
  o.output = dir / "emb.txt";
  o.graph = small_options();
  o.graph.walks.length = 0;
  EXPECT_THROW(run_embed_graph(o), Error);
  o.graph = small_options();
  o.graph.walks.q = -1;
  EXPECT_THROW(run_embed_graph(o), Error);
  o.graph = small_options();
  o.output = dir / "missing/emb.txt";
  EXPECT_THROW(run_embed_graph(o), Error);
  EXPECT_FALSE(std::filesystem::exists(dir / "emb.txt"));
}

TEST(GraphEmbedding, LinkPredictionProtocolBeatsChance) {
  test::ScratchDir dir;
  graph::write_graph_store(two_communities(), dir / "g", {});
  LinkPredProtocolOptions o;
  o.store = dir / "g";
  o.graph = small_options();
  o.graph.walks.p = 0.5;
  o.graph.walks.q = 2.0;
  o.operators = {EdgeOperator::kHadamard, EdgeOperator::kL2};
  o.save_residual = dir / "residual";
  const auto r = run_linkpred(o);
  ASSERT_EQ(r.scores.size(), 2u);
  EXPECT_EQ(r.scores[0].first, "hadamard");
  EXPECT_GT(r.scores[0].second.auc, 0.7);
  const auto residual = graph::GraphStore::open(dir / "residual");
  EXPECT_EQ(residual.meta().num_edges, 2 * (r.total_edges - r.removed_edges));
  EXPECT_EQ(residual.original_ids()[1], 1007);
}

}  // namespace
}  // namespace loom::embed::eval
