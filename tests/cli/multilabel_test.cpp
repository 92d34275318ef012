// Featureless graphs made trainable from the CLI: `loom import --features EMB` gives the nodes
// trained embeddings as features (matched by original id), `--random-split` splits the labelled
// nodes, and `loom train` learns a multi-label task with binary cross-entropy. On PPI (shared
// data; skipped without it) small DeepWalk vectors + 2-layer SAGE must reach twice the top-k
// micro-F1 of the label-frequency prior (0.066 on this split; the full benchmark is in
// bench/bench_multilabel.sh).
#include <cstdio>
#include <filesystem>
#include <sstream>

#include <nlohmann/json.hpp>

#include "loom/core/fs.hpp"
#include "loom/format/npy.hpp"
#include "support/test_support.hpp"

namespace loom {
namespace {

using test::contains;

TEST(CliMultiLabel, FeaturesFromEmbeddingsMatchNodesByOriginalId) {
  test::ScratchDir s;
  test::write_file(s / "e.txt", "10 30\n30 20\n");
  test::write_file(s / "v.txt", "3 2\n30 1 2\n10 3 4\n99 5 6\n");  // 99 names no node; 20 has no vector
  const auto r = test::run_loom("import edgelist " + s / "e.txt" + " -o " + s / "store --features " + s / "v.txt" +
                                " --random-split 0.5,0");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "2 of 3 nodes got a 2-dim vector")) << r.output;
  // Rows are ids 10, 20, 30 in order.
  EXPECT_EQ(format::read_npy_as<float>(s / "store/feat.npy"), (std::vector<float>{3, 4, 0, 0, 1, 2}));
  const auto meta = nlohmann::json::parse(core::read_text_file(s / "store/meta.json"));
  EXPECT_EQ(meta["feat_dim"], 2);
  EXPECT_EQ(meta["provenance"]["features"]["unknown_keys"], 1);
  EXPECT_EQ(meta["splits"]["train"].get<int>() + meta["splits"]["valid"].get<int>() + meta["splits"]["test"].get<int>(),
            3);

  // Vectors of another graph, and impossible split fractions: clear errors, nothing written.
  test::write_file(s / "w.txt", "1 2\n7 1 2\n");
  auto bad = test::run_loom("import edgelist " + s / "e.txt" + " -o " + s / "out --features " + s / "w.txt");
  EXPECT_EQ(bad.status, 1);
  EXPECT_TRUE(contains(bad.output, s / "w.txt")) << bad.output;
  EXPECT_FALSE(std::filesystem::exists(s / "out"));
  bad = test::run_loom("import edgelist " + s / "e.txt" + " -o " + s / "out --random-split 0.9,0.5");
  EXPECT_EQ(bad.status, 1);
  EXPECT_TRUE(contains(bad.output, "--random-split")) << bad.output;
  EXPECT_FALSE(std::filesystem::exists(s / "out"));
}

TEST(CliMultiLabel, PpiDeepWalkFeaturesTrainMultiLabelSage) {
  LOOM_REQUIRE_DATA(ppi, "graphs/ppi");
  test::ScratchDir s;
  ASSERT_EQ(test::run_loom("import ogb " + ppi + " -o " + s / "plain").status, 0);
  const auto emb = test::run_loom("embed deepwalk " + s / "plain" + " -o " + s / "dw.npy" +
                                  " --format npy --walks 4 --length 40 --dim 64 --seed 1 --quiet");
  ASSERT_EQ(emb.status, 0) << emb.output;
  const auto imp =
      test::run_loom("import ogb " + ppi + " -o " + s / "store --features " + s / "dw.npy" + " --random-split 0.5,0.1");
  ASSERT_EQ(imp.status, 0) << imp.output;
  const auto train = test::run_loom("train " + s / "store" +
                                    " --layers 2 --fanouts 10,5 --hidden 128 --batch-size 256 --epochs 10 --lr 0.005"
                                    " --threads 2 --seed 1 --quiet --metrics " +
                                    s / "m.jsonl");
  ASSERT_EQ(train.status, 0) << train.output;
  nlohmann::json exact;
  std::istringstream lines(core::read_text_file(s / "m.jsonl"));
  for (std::string line; std::getline(lines, line);) {
    const auto j = nlohmann::json::parse(line);
    if (j.value("event", "") == "exact_eval") exact = j;
  }
  ASSERT_TRUE(exact.contains("test_topk_micro_f1")) << exact.dump();
  std::printf("PPI multi-label SAGE: test micro-F1 %.4f, top-k micro-F1 %.4f\n", exact["test_micro_f1"].get<double>(),
              exact["test_topk_micro_f1"].get<double>());
  EXPECT_GE(exact["test_topk_micro_f1"].get<double>(), 0.132);
}

}  // namespace
}  // namespace loom
