// One output policy for every command that writes (issue 48): an existing output is refused,
// naming the option, unless --overwrite is given, and checked before the work starts; a replaced
// output is written under a temporary name and renamed at the end, so a run killed on the way
// leaves the old one whole.
#include <chrono>
#include <filesystem>
#include <thread>

#include <gtest/gtest.h>

#include "support/test_support.hpp"

namespace fs = std::filesystem;

namespace loom::test {
namespace {

const std::string kOld = "the old output\n";

class CliOutputPolicy : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto r = run_loom("generate sbm -o " + dir / "g" +
                            " --nodes 400 --classes 3 --avg-degree 6 --feat-dim 8 --seed 1 --threads 1");
    ASSERT_EQ(r.status, 0) << r.output;
  }

  // `args` with its output at `path` (already there) fails naming `option`, leaving the file as it
  // was; with --overwrite it succeeds and replaces it.
  void expect_refused_then_replaced(const std::string& args, const std::string& path, const std::string& option) {
    write_file(path, kOld);
    const auto refused = run_loom(args);
    EXPECT_EQ(refused.status, 1) << refused.output;
    EXPECT_TRUE(contains(refused.output, "argument " + option)) << refused.output;
    EXPECT_TRUE(contains(refused.output, "already exists (pass --overwrite to replace it)")) << refused.output;
    EXPECT_EQ(read_bytes(path), kOld) << args;
    const auto replaced = run_loom(args + " --overwrite");
    EXPECT_EQ(replaced.status, 0) << replaced.output;
    EXPECT_NE(read_bytes(path), kOld) << args;
  }

  ScratchDir dir;
};

TEST_F(CliOutputPolicy, EmbedGraphRefusesAnExistingOutput) {
  expect_refused_then_replaced(
      "embed deepwalk " + dir / "g" + " -o " + dir / "e.txt" + " --walks 1 --length 5 --dim 4 --epochs 1 --threads 1",
      dir / "e.txt", "-o");
}

TEST_F(CliOutputPolicy, EmbedNpyRefusesAnExistingVocabulary) {
  write_file(dir / "e.vocab.txt", kOld);
  const auto r = run_loom("embed deepwalk " + dir / "g" + " -o " + dir / "e.npy" +
                          " --format npy --walks 1 --length 5 --dim 4 --epochs 1 --threads 1");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_TRUE(contains(r.output, "e.vocab.txt' already exists")) << r.output;
  EXPECT_EQ(read_bytes(dir / "e.vocab.txt"), kOld);
  EXPECT_FALSE(fs::exists(dir / "e.npy"));
}

TEST_F(CliOutputPolicy, EmbedTextRefusesAnExistingOutput) {
  std::string corpus;
  for (int line = 0; line < 50; ++line) corpus += "a b c d e f g h\n";
  write_file(dir / "corpus.txt", corpus);
  expect_refused_then_replaced("embed text " + dir / "corpus.txt" + " -o " + dir / "w.txt" +
                                   " --min-count 1 --dim 4 --epochs 1 --threads 1 --quiet",
                               dir / "w.txt", "-o");
}

TEST_F(CliOutputPolicy, AnalyzeCacheRefusesAnExistingJson) {
  ASSERT_EQ(run_loom("partition " + dir / "g" + " -k 2 --method random -o " + dir / "p").status, 0);
  expect_refused_then_replaced(
      "analyze cache " + dir / "p" + " --fanouts 3,2 --alpha 0.1 --epochs 1 --json " + dir / "a.json", dir / "a.json",
      "--json");
}

TEST_F(CliOutputPolicy, TrainingRefusesAnExistingMetricsLog) {
  expect_refused_then_replaced("train " + dir / "g" + " --epochs 1 --hidden 8 --quiet --metrics " + dir / "m.jsonl",
                               dir / "m.jsonl", "--metrics");
  ASSERT_EQ(run_loom("partition " + dir / "g" + " -k 1 --method random -o " + dir / "p").status, 0);
  expect_refused_then_replaced(
      "fullgraph " + dir / "p" + " --epochs 1 --layers 2 --hidden 8 --quiet --metrics " + dir / "f.jsonl",
      dir / "f.jsonl", "--metrics");
}

TEST_F(CliOutputPolicy, WalkRefusesAnExistingOutput) {
  expect_refused_then_replaced("walk " + dir / "g" + " --walks 1 --length 4 -o " + dir / "w.npy", dir / "w.npy", "-o");
}

TEST_F(CliOutputPolicy, AKilledRunLeavesTheOldMetricsWhole) {
  write_file(dir / "m.jsonl", kOld);
  const auto r =
      run_command("timeout -s KILL 4 " + loom_binary() + " train " + dir / "g" +
                  " --epochs 100000 --hidden 8 --eval-every 0 --quiet --overwrite --metrics " + dir / "m.jsonl");
  EXPECT_EQ(r.status, 137) << r.output;
  EXPECT_EQ(read_bytes(dir / "m.jsonl"), kOld);
}

}  // namespace
}  // namespace loom::test
