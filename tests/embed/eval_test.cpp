// Analogy (3CosAdd within the top words, missing words counted) and similarity (Spearman, the
// three pair-file layouts) on hand-made embeddings.
#include <cmath>

#include <gtest/gtest.h>

#include "loom/core/error.hpp"
#include "loom/embed/analogy.hpp"
#include "loom/embed/similarity.hpp"
#include "support/test_support.hpp"

namespace loom::embed {
namespace {

// king - man + woman = queen exactly; paris - france + italy = rome.
Embeddings toy() {
  Embeddings e;
  e.dim = 4;
  const std::vector<std::pair<std::string, std::vector<float>>> rows = {
      {"man", {1, 0, 0, 0}},      {"woman", {1, 1, 0, 0}},         {"king", {1, 0, 1, 0}},
      {"queen", {1, 1, 1, 0}},    {"france", {0, 0, 0, 1}},        {"paris", {0, 0.2f, 0.3f, 1}},
      {"italy", {0.3f, 0, 0, 1}}, {"rome", {0.3f, 0.2f, 0.3f, 1}}, {"rare", {0.5f, 0.5f, 0.5f, 0.5f}}};
  for (const auto& [w, v] : rows) {
    e.words.push_back(w);
    e.values.insert(e.values.end(), v.begin(), v.end());
  }
  return e;
}

TEST(Analogy, CountsCorrectCoveredAndMissingPerSection) {
  test::ScratchDir dir;
  test::write_file(
      dir / "q.txt",
      ": family\nMan Woman King Queen\nman woman king nosuchword\n: gram-capital\nFrance Paris Italy Rome\n"
      "man woman rare queen\n");
  const auto report = evaluate_analogy(toy(), dir / "q.txt", 8);  // "rare" is outside the top 8
  ASSERT_EQ(report.sections.size(), 2u);
  EXPECT_EQ(report.sections[0].questions, 2);
  EXPECT_EQ(report.sections[0].covered, 1);
  EXPECT_EQ(report.sections[0].correct, 1);
  EXPECT_EQ(report.sections[1].covered, 1);
  EXPECT_EQ(report.sections[1].correct, 1);
  EXPECT_EQ(report.semantic.covered, 1);
  EXPECT_EQ(report.syntactic.covered, 1);
  EXPECT_EQ(report.total.questions, 4);
  EXPECT_DOUBLE_EQ(report.total.accuracy(), 1.0);
  EXPECT_NE(format_table(report).find("not covered"), std::string::npos);
}

TEST(Analogy, WrongAnswerIsCountedWrong) {
  test::ScratchDir dir;
  test::write_file(dir / "q.txt", ": x\nman woman king paris\n");
  EXPECT_EQ(evaluate_analogy(toy(), dir / "q.txt").total.correct, 0);
}

TEST(Analogy, MalformedQuestionNamesTheLine) {
  test::ScratchDir dir;
  test::write_file(dir / "q.txt", ": x\nman woman king\n");
  try {
    evaluate_analogy(toy(), dir / "q.txt");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("q.txt:2"), std::string::npos);
  }
}

TEST(Similarity, SpearmanMatchesHandComputedValues) {
  const std::vector<double> x{1, 2, 3, 4, 5}, y{5, 6, 7, 8, 7};
  EXPECT_NEAR(spearman(x, y), 0.8207826816681233, 1e-12);  // scipy.stats.spearmanr
  const std::vector<double> z{5, 4, 3, 2, 1};
  EXPECT_NEAR(spearman(x, z), -1.0, 1e-12);
}

TEST(Similarity, ReadsWordsimSimlexAndMenLayouts) {
  test::ScratchDir dir;
  const auto e = toy();
  test::write_file(
      dir / "ws.tsv",
      "# comment\n# Word 1\tWord 2\tHuman\nking\tqueen\t9\nman\tparis\t1\nking\tpizza\t5\nking\twoman\t5\n");
  test::write_file(
      dir / "simlex.txt",
      "word1\tword2\tPOS\tSimLex999\tconc\nking\tqueen\tN\t9\t1\nman\tparis\tN\t1\t1\nking\twoman\tN\t5\t1\n");
  test::write_file(dir / "men.txt", "word1 word2 score\nking queen 9\nman paris 1\nking woman 5\n");
  for (const auto* name : {"ws.tsv", "simlex.txt", "men.txt"}) {
    const auto r = evaluate_similarity(e, dir / name);
    EXPECT_EQ(r.covered, 3) << name;
    EXPECT_NEAR(r.spearman, 1.0, 1e-12) << name;
  }
  EXPECT_EQ(evaluate_similarity(e, dir / "ws.tsv").pairs, 4);
}

TEST(Similarity, MalformedScoreNamesTheLine) {
  test::ScratchDir dir;
  test::write_file(dir / "p.tsv", "king\tqueen\t9\nman\twoman\tlots\n");
  try {
    evaluate_similarity(toy(), dir / "p.tsv");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("p.tsv:2"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace loom::embed
