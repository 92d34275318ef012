// End to end: `loom embed text` writes loadable embeddings in every format, `loom eval analogy`
// and `similarity` read them, and bad input exits non-zero with a message naming the problem.
#include <gtest/gtest.h>

#include "loom/core/rng.hpp"
#include "support/test_support.hpp"

namespace loom::test {
namespace {

// A small corpus: sentences mixing words of one of three topics.
std::string topic_corpus() {
  const std::vector<std::vector<std::string>> topics = {{"king", "queen", "royal", "crown", "throne"},
                                                        {"cat", "dog", "pet", "fur", "paw"},
                                                        {"rain", "snow", "cloud", "storm", "wind"}};
  core::Rng rng(3);
  std::string text;
  for (int s = 0; s < 600; ++s) {
    const auto& topic = topics[rng.below(3)];
    for (int i = 0; i < 10; ++i) text += (i ? " " : "") + topic[rng.below(topic.size())];
    text += ".\n";
  }
  return text;
}

const char* kSmallTextRun = " --dim 8 --window 2 --epochs 2 --min-count 1 --sample 0 --threads 1 --quiet";

TEST(EmbedText, WritesEveryFormatAndEvalReadsThem) {
  ScratchDir dir;
  write_file(dir / "corpus.txt.gz", topic_corpus(), /*gzip=*/true);
  write_file(dir / "pairs.tsv", "king\tqueen\t9\ncat\tdog\t8\nking\train\t1\ncat\tstorm\t1\nking\tnosuch\t3\n");
  write_file(dir / "q.txt", ": t\nking queen cat dog\nking queen nosuch dog\n");
  for (const std::string format : {"text", "binary", "npy"}) {
    const std::string out = dir / ("emb." + format);
    const auto r =
        run_loom("embed text " + dir / "corpus.txt.gz" + " -o " + out + " --format " + format + kSmallTextRun);
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("wrote 15 vectors of dimension 8"), std::string::npos) << r.output;
    const auto sim = run_loom("eval similarity " + out + " --pairs " + dir / "pairs.tsv" + " --json");
    ASSERT_EQ(sim.status, 0) << sim.output;
    EXPECT_NE(sim.output.find("\"covered\":4"), std::string::npos) << sim.output;
    const auto analogy = run_loom("eval analogy " + out + " --questions " + dir / "q.txt" + " --json");
    ASSERT_EQ(analogy.status, 0) << analogy.output;
    EXPECT_NE(analogy.output.find("\"covered\":1"), std::string::npos) << analogy.output;
  }
}

TEST(EmbedText, EmptyCorpusFails) {
  ScratchDir dir;
  write_file(dir / "empty.txt", "\n\n");
  const auto r = run_loom("embed text " + dir / "empty.txt" + " -o " + dir / "e.txt" + kSmallTextRun);
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("empty corpus"), std::string::npos) << r.output;
  EXPECT_FALSE(exists(dir / "e.txt"));
}

TEST(EmbedText, VocabularyEmptyAfterMinCountFails) {
  ScratchDir dir;
  write_file(dir / "c.txt", "a b c\n");
  const auto r = run_loom("embed text " + dir / "c.txt" + " -o " + dir / "e.txt --min-count 9 --quiet");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("vocabulary is empty after --min-count 9"), std::string::npos) << r.output;
}

TEST(EmbedText, BadDimAndWindowFailNamingTheOption) {
  ScratchDir dir;
  write_file(dir / "c.txt", "a b c\n");
  auto r = run_loom("embed text " + dir / "c.txt" + " -o " + dir / "e.txt --dim 0 --quiet");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("--dim"), std::string::npos) << r.output;
  r = run_loom("embed text " + dir / "c.txt" + " -o " + dir / "e.txt --window 0 --quiet");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("--window"), std::string::npos) << r.output;
  r = run_loom("embed text " + dir / "c.txt" + " -o " + dir / "e.txt --kernel fast --quiet");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("--kernel"), std::string::npos) << r.output;
}

TEST(EvalSimilarity, InconsistentDimensionsFail) {
  ScratchDir dir;
  write_file(dir / "bad.txt", "2 3\nking 1 2 3\nqueen 1 2\n");
  write_file(dir / "pairs.tsv", "king\tqueen\t9\n");
  const auto r = run_loom("eval similarity " + dir / "bad.txt" + " --pairs " + dir / "pairs.tsv");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("inconsistent dimensions"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace loom::test
