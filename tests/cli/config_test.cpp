// `--config FILE.toml`: every long option of `loom train` / `loom fullgraph` can come from the
// file (top level or under the command's section), flags on the command line override it, and
// an unknown key, a value of the wrong type or one the option rejects is a usage error naming
// the key, the file and the line. Options that only GAT has are errors on other models.
#include <gtest/gtest.h>

#include <string>

#include "support/test_support.hpp"

namespace loom {
namespace {

using test::contains;

class CliConfig : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new test::ScratchDir();
    const auto r = test::run_loom("generate sbm -o " + (*dir_ / "g") +
                                  " --nodes 600 --classes 3 --avg-degree 6 --feat-dim 8 --seed 1");
    ASSERT_EQ(r.status, 0) << r.output;
  }
  static void TearDownTestSuite() { delete dir_; }
  static std::string store() { return *dir_ / "g"; }
  // Writes `text` as a config file and returns its path.
  static std::string config(const std::string& name, const std::string& text) {
    test::write_file(*dir_ / name, text);
    return *dir_ / name;
  }
  static inline test::ScratchDir* dir_ = nullptr;
};

TEST_F(CliConfig, FileSetsOptionsAndFlagsOverrideIt) {
  const std::string recipe = config("gcn.toml",
                                    "# a recipe\n"
                                    "model = \"gcn\"\n"
                                    "layers = 2\n"
                                    "hidden = 16\n"
                                    "fanouts = \"-1,-1\"\n"
                                    "[train]\n"
                                    "epochs = 1\n"
                                    "weight_decay_layers = [0]\n"
                                    "no-exact-eval = true\n");
  auto r = test::run_loom("train " + store() + " --config " + recipe);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "training gcn (2 layers, hidden 16)")) << r.output;
  EXPECT_TRUE(contains(r.output, "epoch   1")) << r.output;
  EXPECT_FALSE(contains(r.output, "epoch   2")) << r.output;
  EXPECT_FALSE(contains(r.output, "exact layer-wise inference")) << r.output;  // the negated flag took effect

  r = test::run_loom("train " + store() + " --config " + recipe + " --hidden 32 --quiet");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "training gcn (2 layers, hidden 32)")) << r.output;
  EXPECT_FALSE(contains(r.output, "epoch   1")) << r.output;
}

TEST_F(CliConfig, UnknownKeyIsAUsageErrorNamingFileLineAndKey) {
  const std::string bad = config("typo.toml", "layers = 2\nmodle = \"gcn\"\n");
  const auto r = test::run_loom("train " + store() + " --config " + bad);
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(contains(r.output, bad + ":2: 'modle': not an option of `loom train` (did you mean 'model'?)"))
      << r.output;
}

TEST_F(CliConfig, WrongTypeOrRejectedValueNamesTheLine) {
  auto r = test::run_loom("train " + store() + " --config " + config("type.toml", "\nlayers = \"two\"\n"));
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "type.toml:2: 'layers': wants an integer, got string \"two\"")) << r.output;

  r = test::run_loom("train " + store() + " --config " + config("flag.toml", "quiet = 1\n"));
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "flag.toml:1: 'quiet': wants true or false")) << r.output;

  r = test::run_loom("train " + store() + " --config " + config("word.toml", "epochs = 1\nactivation = \"tanh\"\n"));
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "word.toml:2: 'activation':")) << r.output;

  r = test::run_loom("train " + store() + " --config " + config("section.toml", "[fullgraph]\nmode = \"pipe\"\n"));
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "section.toml:2: section [fullgraph] does not belong to `loom train`")) << r.output;

  r = test::run_loom("train " + store() + " --config " + (*dir_ / "missing.toml"));
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "missing.toml")) << r.output;
}

TEST_F(CliConfig, FullgraphReadsTheSameFiles) {
  const auto r = test::run_loom("fullgraph " + store() + " --config " + config("fg.toml", "[fullgraph]\nlayrs = 4\n"));
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "fg.toml:2: 'layrs': not an option of `loom fullgraph` (did you mean 'layers'?)"))
      << r.output;
}

TEST_F(CliConfig, EmbeddingCommandsReadConfigFilesToo) {
  const std::string recipe = config("n2v.toml", "[node2vec]\np = 0.25\nq = 0.25\nwalks = 2\nlength = 10\ndim = 8\n");
  auto r = test::run_loom("embed node2vec " + store() + " -o " + (*dir_ / "n2v.txt") + " --config " + recipe +
                          " --quiet --json");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "(node2vec p=0.25 q=0.25)")) << r.output;
  EXPECT_TRUE(contains(r.output, "walks: 1200 of length 10")) << r.output;  // 2 walks x 600 nodes
  r = test::run_loom("embed deepwalk " + store() + " -o " + (*dir_ / "dw.txt") + " --config " + recipe);
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "section [node2vec] does not belong to `loom embed deepwalk`")) << r.output;
}

TEST_F(CliConfig, LinkEmulationOptionsComeFromTheFileOrTheCommandLine) {
  const std::string link = config("link.toml",
                                  "epochs = 1\nnet-bandwidth = \"10Gbit\"\nnet-latency = \"20us\"\n"
                                  "net-host-latency = \"50us\"\nnet-host-bandwidth = \"1GB/s\"\n");
  auto r = test::run_loom("train " + store() + " --model gcn --layers 2 --fanouts 5,5 --quiet --config " + link);
  EXPECT_EQ(r.status, 0) << r.output;
  for (const std::string bad :
       {"--net-bandwidth fast", "--net-latency 20", "--net-host-bandwidth 0", "--net-host-latency -1ms"}) {
    r = test::run_loom("train " + store() + " --model gcn --layers 2 --fanouts 5,5 --epochs 1 " + bad);
    EXPECT_EQ(r.status, 2) << bad << ": " << r.output;
    EXPECT_TRUE(contains(r.output, bad.substr(0, bad.find(' ')))) << r.output;
  }
}

TEST_F(CliConfig, GatOnlyOptionsOnAnotherModelAreErrors) {
  for (const std::string option : {"--attention-dropout 0.5", "--output-heads 8", "--heads 2", "--head-merge mean"}) {
    const auto r = test::run_loom("train " + store() + " --model gcn --layers 2 --fanouts 5,5 --epochs 1 " + option);
    EXPECT_EQ(r.status, 1) << option << ": " << r.output;
    const std::string name = option.substr(0, option.find(' '));
    EXPECT_TRUE(contains(r.output, "argument " + name + ": applies to --model gat only, not gcn")) << r.output;
  }
}

}  // namespace
}  // namespace loom
