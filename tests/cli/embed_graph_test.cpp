// End to end: `loom walk`, `loom embed deepwalk|node2vec`, `loom eval nodeclass|linkpred` on a small
// imported edge list, and bad options exit non-zero naming the option with no output left behind.
#include <filesystem>

#include <gtest/gtest.h>

#include "loom/core/fs.hpp"
#include "loom/core/rng.hpp"
#include "support/test_support.hpp"

namespace loom::test {
namespace {

// Two communities of 30 nodes with sparse original ids (100 + 3 * i), as an edge list.
std::string community_edges() {
  core::Rng rng(2);
  std::string text = "# two communities\n";
  for (int c = 0; c < 2; ++c)
    for (int u = 0; u < 30; ++u)
      for (int v = u + 1; v < 30; ++v)
        if (rng.uniform() < 0.3)
          text += std::to_string(100 + 3 * (c * 30 + u)) + " " + std::to_string(100 + 3 * (c * 30 + v)) + "\n";
  text += "100 190\n130 220\n";
  return text;
}

const char* kSmallWalkRun = " --dim 8 --walks 5 --length 20 --window 4 --threads 1 --quiet";

TEST(EmbedGraph, WalkEmbedAndLinkPredictionRunEndToEnd) {
  ScratchDir dir;
  write_file(dir / "edges.txt", community_edges());
  ASSERT_EQ(run_loom("import edgelist " + dir / "edges.txt" + " -o " + dir / "g").status, 0);

  const auto walk =
      run_loom("walk " + dir / "g" + " --walks 2 --length 10 --p 0.5 --q 2 -o " + dir / "w.npy" + " --json");
  ASSERT_EQ(walk.status, 0) << walk.output;
  EXPECT_NE(walk.output.find("\"steps\":1080"), std::string::npos) << walk.output;  // 60 * 2 * 9
  EXPECT_TRUE(std::filesystem::exists(dir / "w.npy"));

  for (const std::string method : {"deepwalk", "node2vec --p 0.5 --q 2"}) {
    const auto r = run_loom("embed " + method + " " + dir / "g" + " -o " + dir / "emb.txt --overwrite" + kSmallWalkRun);
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("wrote 60 vectors of dimension 8"), std::string::npos) << r.output;
  }
  EXPECT_NE(core::read_text_file(dir / "emb.txt").find("\n277 "), std::string::npos);  // keyed by original id

  const auto lp =
      run_loom("eval linkpred " + dir / "g" + " --method node2vec --q 2 --operator hadamard,l2" + kSmallWalkRun);
  ASSERT_EQ(lp.status, 0) << lp.output;
  EXPECT_NE(lp.output.find("hadamard: AUC"), std::string::npos) << lp.output;
  EXPECT_NE(lp.output.find("l2: AUC"), std::string::npos) << lp.output;
}

TEST(EmbedGraph, BadOptionsExitNonZeroNamingTheOption) {
  ScratchDir dir;
  write_file(dir / "edges.txt", community_edges());
  ASSERT_EQ(run_loom("import edgelist " + dir / "edges.txt" + " -o " + dir / "g").status, 0);
  const auto zero = run_loom("embed deepwalk " + dir / "g" + " -o " + dir / "emb.txt --length 0");
  EXPECT_EQ(zero.status, 1);
  EXPECT_NE(zero.output.find("--length"), std::string::npos) << zero.output;
  // A walk of one node has no pair to train on (it used to write untrained vectors, loss 0).
  const auto one = run_loom("embed deepwalk " + dir / "g" + " -o " + dir / "emb.txt --length 1");
  EXPECT_EQ(one.status, 1);
  EXPECT_NE(one.output.find("--length: walk length must be at least 2, got 1"), std::string::npos) << one.output;
  const auto bad_p = run_loom("embed node2vec " + dir / "g" + " -o " + dir / "emb.txt --p 0");
  EXPECT_EQ(bad_p.status, 1);
  EXPECT_NE(bad_p.output.find("--p"), std::string::npos) << bad_p.output;
  EXPECT_FALSE(std::filesystem::exists(dir / "emb.txt"));
  const auto dw_pq = run_loom("eval linkpred " + dir / "g" + " --method deepwalk --q 2");
  EXPECT_EQ(dw_pq.status, 1);
  EXPECT_NE(dw_pq.output.find("--method"), std::string::npos) << dw_pq.output;
  const auto no_labels = run_loom("eval nodeclass " + dir / "emb.txt --store " + dir / "g");
  EXPECT_EQ(no_labels.status, 1);
  EXPECT_NE(no_labels.output.find("no labels"), std::string::npos) << no_labels.output;
  const auto walk0 = run_loom("walk " + dir / "g" + " --walks 0");
  EXPECT_EQ(walk0.status, 1);
  EXPECT_NE(walk0.output.find("--walks"), std::string::npos) << walk0.output;
}

}  // namespace
}  // namespace loom::test
