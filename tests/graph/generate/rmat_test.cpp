#include "loom/graph/generate/rmat.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "loom/core/error.hpp"
#include "loom/core/parallel.hpp"
#include "support/test_support.hpp"

namespace loom::graph::generate {
namespace {

RmatOptions small_rmat() {
  RmatOptions o;
  o.scale = 12;
  o.edge_factor = 8;
  o.seed = 3;
  return o;
}

TEST(Rmat, SameGraphAtAnyThreadCount) {
  auto o = small_rmat();
  o.feat_dim = 4;
  o.classes = 5;
  core::set_num_threads(1);
  const GraphData one = generate_rmat(o);
  core::set_num_threads(2);
  const GraphData two = generate_rmat(o);
  EXPECT_EQ(one.indptr, two.indptr);
  EXPECT_EQ(one.indices, two.indices);
  EXPECT_EQ(one.feat, two.feat);
  EXPECT_EQ(one.label, two.label);
  EXPECT_EQ(one.splits, two.splits);
}

TEST(Rmat, SeedChangesTheGraph) {
  auto o = small_rmat();
  const GraphData a = generate_rmat(o);
  o.seed = 4;
  EXPECT_NE(a.indices, generate_rmat(o).indices);
}

TEST(Rmat, SymmetricWithoutLoopsOrDuplicates) {
  const GraphData d = generate_rmat(small_rmat());
  ASSERT_EQ(d.num_rows(), 4096);
  for (std::int64_t v = 0; v < d.num_rows(); ++v)
    for (auto e = d.indptr[v]; e < d.indptr[v + 1]; ++e) {
      const auto u = d.indices[e];
      ASSERT_NE(u, v);
      if (e > d.indptr[v]) {
        ASSERT_LT(d.indices[e - 1], u);
      }
      ASSERT_TRUE(std::binary_search(d.indices.begin() + d.indptr[u], d.indices.begin() + d.indptr[u + 1], v));
    }
  const auto generated = d.provenance["generated_edges"].get<std::int64_t>();
  EXPECT_EQ(generated, 8 * 4096);
  EXPECT_EQ(static_cast<std::int64_t>(d.indices.size()),
            2 * generated - d.provenance["self_loops_removed"].get<std::int64_t>() * 2 -
                d.provenance["duplicates_removed"].get<std::int64_t>());
}

TEST(Rmat, DegreesAreSkewedAndHubsAreShuffled) {
  const GraphData d = generate_rmat(small_rmat());
  std::int64_t max_degree = 0, hub = 0;
  for (std::int64_t v = 0; v < d.num_rows(); ++v)
    if (d.indptr[v + 1] - d.indptr[v] > max_degree) max_degree = d.indptr[v + 1] - d.indptr[v], hub = v;
  const double avg = static_cast<double>(d.indices.size()) / static_cast<double>(d.num_rows());
  EXPECT_GT(static_cast<double>(max_degree), 20 * avg);
  EXPECT_NE(hub, 0);  // R-MAT's hub is id 0 before the shuffle
}

TEST(Rmat, EqualQuadrantsGiveUniformDegrees) {
  auto o = small_rmat();
  o.a = o.b = o.c = 0.25;
  const GraphData d = generate_rmat(o);
  std::int64_t max_degree = 0;
  for (std::int64_t v = 0; v < d.num_rows(); ++v) max_degree = std::max(max_degree, d.indptr[v + 1] - d.indptr[v]);
  EXPECT_LT(max_degree, 3 * 16);  // Erdos-Renyi-like: average 16, no hubs
}

TEST(Rmat, LabelsFollowRmatIdAndSplitsCoverNodes) {
  auto o = small_rmat();
  o.classes = 4;
  o.feat_dim = 3;
  const GraphData d = generate_rmat(o);
  ASSERT_EQ(d.label.size(), 4096u);
  std::vector<int> count(4, 0);
  for (auto l : d.label) ++count.at(l);
  for (int c : count) EXPECT_EQ(c, 1024);
  EXPECT_EQ(d.feat.size(), 4096u * 3);
  EXPECT_EQ(d.splits.at("train").size() + d.splits.at("valid").size() + d.splits.at("test").size(), 4096u);
  // Class 0 holds the low R-MAT ids, which are the high-degree vertices.
  std::vector<double> degree_sum(4, 0);
  for (std::int64_t v = 0; v < d.num_rows(); ++v) degree_sum[d.label[v]] += d.indptr[v + 1] - d.indptr[v];
  EXPECT_GT(degree_sum[0], degree_sum[3]);
}

void expect_argument_error(const RmatOptions& o, const std::string& argument) {
  try {
    check(o);
    FAIL() << "accepted bad " << argument;
  } catch (const Error& e) {
    EXPECT_EQ(e.argument(), argument) << e.what();
  }
}

TEST(Rmat, RejectsBadOptionsNamingTheArgument) {
  auto o = small_rmat();
  o.scale = 0;
  expect_argument_error(o, "--scale");
  o.scale = 40;
  expect_argument_error(o, "--scale");
  o = small_rmat();
  o.edge_factor = 0;
  expect_argument_error(o, "--edge-factor");
  o = small_rmat();
  o.a = 0.6, o.b = 0.2, o.c = 0.2;  // d = 0
  expect_argument_error(o, "--c");
  o = small_rmat();
  o.b = -0.1;
  expect_argument_error(o, "--b");
  o = small_rmat();
  o.classes = 5000;
  expect_argument_error(o, "--classes");
}

// generate_rmat_store writes out of core; its store equals the in-memory generator's byte for byte.
TEST(Rmat, TheStoreWrittenOutOfCoreIsByteIdenticalToTheInMemoryOne) {
  RmatOptions o = small_rmat();
  o.classes = 4;
  o.feat_dim = 6;
  test::ScratchDir dir;
  write_graph_store(generate_rmat(o), dir / "memory", {});
  StoreWriteOptions write;
  write.memory_bytes = 16 << 10;
  generate_rmat_store(o, dir / "stream", write);
  EXPECT_EQ(test::expect_same_store(dir / "memory", dir / "stream"), 8);
}

}  // namespace
}  // namespace loom::graph::generate
