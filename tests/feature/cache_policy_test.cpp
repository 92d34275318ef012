// Static cache policies: what a rank may cache, how much, in which order, and how the
// analysis ranks policies (the oracle bounds every static cache; VIP beats the heuristics).
#include <cmath>

#include <gtest/gtest.h>

#include "loom/core/error.hpp"
#include "loom/feature/cache_analysis.hpp"
#include "loom/feature/cache_policy.hpp"
#include "loom/graph/generate/sbm.hpp"
#include "loom/partition/write_partitioned.hpp"
#include "support/test_support.hpp"

namespace loom::feature {
namespace {

TEST(SelectCache, TakesOnlyRemoteVerticesHottestFirstUpToCapacity) {
  const partition::PartitionBook book({0, 3, 6});
  const std::vector<double> scores = {9, 9, 9, 1, 5, 5};
  EXPECT_EQ(select_cache(scores, book, 0, 2), (std::vector<std::int64_t>{4, 5}));  // ties by id
  EXPECT_EQ(select_cache(scores, book, 0, 10), (std::vector<std::int64_t>{4, 5, 3}));
  EXPECT_EQ(select_cache(scores, book, 1, 1), (std::vector<std::int64_t>{0}));
  EXPECT_TRUE(select_cache(scores, book, 1, 0).empty());
}

TEST(SelectCache, NeverCachesVerticesScoringZero) {
  const partition::PartitionBook book({0, 2, 4});
  EXPECT_EQ(select_cache(std::vector<double>{0, 0, 0, 3}, book, 0, 5), (std::vector<std::int64_t>{3}));
}

TEST(CacheCapacity, IsAlphaTimesNodesPerPartCappedByRemoteVertices) {
  const partition::PartitionBook book({0, 50, 100, 150, 200});
  EXPECT_EQ(cache_capacity(0.0, book, 0), 0);
  EXPECT_EQ(cache_capacity(0.2, book, 0), 10);
  EXPECT_EQ(cache_capacity(1.0, book, 1), 50);
  EXPECT_EQ(cache_capacity(10.0, book, 1), 150);
  EXPECT_THROW(cache_capacity(-0.1, book, 0), Error);
}

TEST(CachePolicy, UnknownNameIsAnErrorNamingTheArgument) {
  try {
    core::parse_enum(kCachePolicyNames, "lru", "--cache");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--cache"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("vip"), std::string::npos);
  }
}

TEST(CachePolicy, HaloScoresOnlyNeighboursOfTrainingNodes) {
  // Path 0-1-2-3-4.
  const auto g = graph::Csr::from_vectors({0, 1, 3, 5, 7, 8}, {1, 0, 2, 1, 3, 2, 4, 3}, 5);
  CacheContext c;
  c.graph = &g;
  c.book = partition::PartitionBook({0, 1, 5});
  const std::vector<std::int64_t> train = {0};
  c.train_ids = train;
  const auto scores = cache_scores(CachePolicy::kHalo, c);
  EXPECT_EQ(scores, (std::vector<double>{0, 2, 0, 0, 0}));
}

class CacheAnalysisTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new test::ScratchDir();
    graph::generate::SbmOptions o;
    o.nodes = 4000;
    o.classes = 8;
    o.avg_degree = 10;
    o.homophily = 0.7;
    o.degree_skew = 2.5;
    o.feat_dim = 4;
    o.train = 0.2;
    o.valid = 0.1;
    o.seed = 11;
    graph::generate::generate_sbm_store(o, *dir_ / "sbm", {});
    partition::PartitionOptions p;
    p.source = *dir_ / "sbm";
    p.output = *dir_ / "parts";
    p.num_parts = 4;
    partition::partition_store(p);
  }
  static void TearDownTestSuite() { delete dir_; }
  static test::ScratchDir* dir_;
};
test::ScratchDir* CacheAnalysisTest::dir_ = nullptr;

TEST_F(CacheAnalysisTest, OracleBoundsEveryPolicyAndVipBeatsTheHeuristics) {
  CacheAnalysisOptions o;
  o.store = *dir_ / "parts";
  o.fanouts = {10, 5};
  o.batch_size = 128;
  o.alphas = {0, 0.05, 0.2, 0.5};
  o.policies = {CachePolicy::kNone, CachePolicy::kVip,    CachePolicy::kSimulation, CachePolicy::kDegree,
                CachePolicy::kHalo, CachePolicy::kRandom, CachePolicy::kOracle};
  o.epochs = 3;
  const auto a = analyze_cache(o);
  ASSERT_EQ(a.results.size(), o.policies.size());
  const auto rows = [&](const std::string& p, std::size_t alpha) {
    for (const auto& r : a.results)
      if (core::enum_name(kCachePolicyNames, r.policy) == p) return r.remote_rows[alpha];
    ADD_FAILURE() << "no policy " << p;
    return 0.0;
  };
  EXPECT_GT(a.no_cache_remote_rows, 0);
  for (const auto& r : a.results)
    EXPECT_DOUBLE_EQ(r.remote_rows[0], a.no_cache_remote_rows) << core::enum_name(kCachePolicyNames, r.policy);
  for (std::size_t i = 1; i < o.alphas.size(); ++i) {
    EXPECT_DOUBLE_EQ(rows("none", i), a.no_cache_remote_rows);
    for (const auto& r : a.results) {
      EXPECT_LE(rows("oracle", i), r.remote_rows[i] + 1e-9)
          << core::enum_name(kCachePolicyNames, r.policy) << " alpha " << o.alphas[i];
      EXPECT_LE(r.remote_rows[i], r.remote_rows[i - 1] + 1e-9)
          << core::enum_name(kCachePolicyNames, r.policy) << ": a bigger cache moved more";
    }
    EXPECT_LT(rows("vip", i), rows("degree", i)) << "alpha " << o.alphas[i];
    EXPECT_LT(rows("vip", i), rows("random", i)) << "alpha " << o.alphas[i];
    EXPECT_LT(rows("vip", i), rows("none", i)) << "alpha " << o.alphas[i];
  }
  // Dense rows: every remote row costs dim x 4 bytes on the float32 wire.
  const double row_bytes = a.no_cache_remote_bytes / a.no_cache_remote_rows;
  EXPECT_EQ(std::fmod(row_bytes, 4.0), 0.0);
  for (const auto& r : a.results)
    for (std::size_t i = 0; i < o.alphas.size(); ++i)
      EXPECT_NEAR(r.remote_bytes[i], r.remote_rows[i] * row_bytes, 1e-6 * a.no_cache_remote_bytes);
  const std::string table = a.table();
  EXPECT_NE(table.find("simulation"), std::string::npos);
  EXPECT_NE(table.find("remote bytes per epoch"), std::string::npos);
  EXPECT_EQ(a.to_json()["policies"]["vip"]["remote_bytes_per_epoch"].size(), o.alphas.size());
  EXPECT_EQ(a.to_json()["policies"]["vip"]["remote_rows_per_epoch"].size(), o.alphas.size());
}

TEST_F(CacheAnalysisTest, RejectsNegativeAlphaAndNoPolicy) {
  CacheAnalysisOptions o;
  o.store = *dir_ / "parts";
  o.fanouts = {10, 5};
  o.alphas = {-1};
  EXPECT_THROW(analyze_cache(o), Error);
  o.alphas = {0.1};
  o.policies = {};
  EXPECT_THROW(analyze_cache(o), Error);
}

}  // namespace
}  // namespace loom::feature
