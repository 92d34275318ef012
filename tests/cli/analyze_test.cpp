// End-to-end `loom analyze cache|prefetch`: the policy table and the prefetch bound (and JSON)
// from a generated, partitioned graph, and clear errors for bad arguments.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/test_support.hpp"

namespace loom::test {
namespace {

class CliAnalyze : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new ScratchDir();
    ASSERT_EQ(run_loom("generate sbm --nodes 3000 --classes 6 --avg-degree 10 --feat-dim 4 --train 0.2 --seed 2 -o " +
                       *dir_ / "sbm")
                  .status,
              0);
    ASSERT_EQ(run_loom("partition " + *dir_ / "sbm" + " -k 4 -o " + *dir_ / "parts").status, 0);
  }
  static void TearDownTestSuite() { delete dir_; }
  static ScratchDir* dir_;
};
ScratchDir* CliAnalyze::dir_ = nullptr;

TEST_F(CliAnalyze, CachePrintsRemoteRowsPerPolicyAndAlpha) {
  const auto r = run_loom("analyze cache " + *dir_ / "parts" +
                          " --fanouts 10,5 --batch-size 128 --alpha 0,0.1,0.5 --policies vip,degree,oracle --epochs 2"
                          " --json " +
                          *dir_ / "cache.json");
  ASSERT_EQ(r.status, 0) << r.output;
  for (const char* word : {"vip", "degree", "oracle", "a=0.1", "a=0.5", "4 parts"})
    EXPECT_NE(r.output.find(word), std::string::npos) << word << "\n" << r.output;
  std::ifstream in(*dir_ / "cache.json");
  const auto j = nlohmann::json::parse(in);
  EXPECT_EQ(j["parts"], 4);
  const auto vip = j["policies"]["vip"]["remote_rows_per_epoch"];
  ASSERT_EQ(vip.size(), 3u);
  EXPECT_GT(vip[0].get<double>(), vip[2].get<double>());
  EXPECT_LE(j["policies"]["oracle"]["remote_rows_per_epoch"][1].get<double>(), vip[1].get<double>());
}

TEST_F(CliAnalyze, PrefetchBoundIsBelowTheBestStaticBuffer) {
  const std::string parts = *dir_ / "parts";
  const auto r = run_loom("analyze prefetch " + parts +
                          " --fanouts 10,5 --batch-size 128 --prefetch 0.1,0.5 --epochs 2"
                          " --json " +
                          *dir_ / "prefetch.json");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("Belady"), std::string::npos) << r.output;
  std::ifstream in(*dir_ / "prefetch.json");
  const auto j = nlohmann::json::parse(in);
  const double none = j["remote_rows_per_epoch_no_buffer"];
  const auto belady = j["remote_rows_per_epoch_belady"], best_static = j["remote_rows_per_epoch_best_static"];
  ASSERT_EQ(belady.size(), 2u);
  for (int f = 0; f < 2; ++f) {
    EXPECT_LE(belady[f].get<double>(), best_static[f].get<double>()) << f;
    EXPECT_LT(best_static[f].get<double>(), none) << f;
  }
  EXPECT_LT(belady[1].get<double>(), belady[0].get<double>());
  // The same sampled minibatches as the cache analysis (and the trainer): the same rows without a buffer.
  ASSERT_EQ(run_loom("analyze cache " + parts +
                     " --fanouts 10,5 --batch-size 128 --alpha 0 --policies none --epochs 2"
                     " --json " +
                     *dir_ / "none.json")
                .status,
            0);
  std::ifstream none_in(*dir_ / "none.json");
  EXPECT_DOUBLE_EQ(nlohmann::json::parse(none_in)["remote_rows_per_epoch_no_cache"].get<double>(), none);

  const auto bad = run_loom("analyze prefetch " + parts + " --fanouts 10,5 --prefetch 0");
  EXPECT_NE(bad.status, 0);
  EXPECT_NE(bad.output.find("--prefetch"), std::string::npos) << bad.output;
}

TEST_F(CliAnalyze, BadArgumentsFailNamingThem) {
  const std::string parts = *dir_ / "parts";
  auto r = run_loom("analyze cache " + parts + " --fanouts 10,5 --alpha -0.5");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("--alpha"), std::string::npos) << r.output;
  r = run_loom("analyze cache " + parts + " --fanouts 10,5 --policies vip,lru");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("lru"), std::string::npos) << r.output;
  r = run_loom("analyze cache " + parts + " --fanouts 10,0");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("--fanouts"), std::string::npos) << r.output;
  r = run_loom("analyze cache " + *dir_ / "missing");
  EXPECT_NE(r.status, 0);
  EXPECT_FALSE(std::filesystem::exists(*dir_ / "missing"));
}

TEST_F(CliAnalyze, TrainWithUnknownCachePolicyFails) {
  const auto r = run_loom("train " + *dir_ / "sbm" + " --layers 2 --fanouts 5,5 --epochs 1 --cache lru");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("--cache"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace loom::test
