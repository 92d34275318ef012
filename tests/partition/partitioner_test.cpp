#include "loom/partition/partitioner.hpp"

#include <set>

#include <gtest/gtest.h>

#include "loom/core/error.hpp"
#include "loom/core/parallel.hpp"
#include "loom/partition/balance.hpp"
#include "loom/partition/quality.hpp"
#include "partition/test_graphs.hpp"
#include "support/test_support.hpp"

namespace loom::partition {
namespace {

graph::GraphStore write_and_open(const graph::GraphData& d, const test::ScratchDir& scratch,
                                 const std::string& name = "g") {
  graph::write_graph_store(d, scratch / name, {});
  return graph::GraphStore::open(scratch / name);
}

void expect_argument_error(const std::function<void()>& f, const std::string& argument) {
  try {
    f();
    FAIL() << "expected an error naming " << argument;
  } catch (const Error& e) {
    EXPECT_EQ(e.argument(), argument) << e.what();
  }
}

TEST(MetisPartitioner, CutsOnlyTheBridgeBetweenTwoCliques) {
  test::ScratchDir scratch;
  const auto store = write_and_open(test::two_cliques(6), scratch);
  const auto parts = assign_parts(*make_partitioner(PartitionMethod::kMetis), store, 2, 7);
  ASSERT_EQ(parts.size(), 12u);
  for (std::int64_t v = 2; v < 12; ++v) EXPECT_EQ(parts[v], parts[v % 2]) << "node " << v;
  EXPECT_NE(parts[0], parts[1]);
  EXPECT_EQ(edge_cut(store.csr(), parts, /*directed=*/false).cut, 1);
}

TEST(MetisPartitioner, SameSeedSamePartsAtAnyThreadCount) {
  test::ScratchDir scratch;
  const auto store = write_and_open(test::random_graph(400, 1600, 3), scratch);
  const auto metis = make_partitioner(PartitionMethod::kMetis);
  core::set_num_threads(1);
  const auto one = metis->partition(store, 4, 11);
  core::set_num_threads(2);
  const auto two = metis->partition(store, 4, 11);
  EXPECT_EQ(one, two);
  EXPECT_EQ(std::set<std::int32_t>(one.begin(), one.end()).size(), 4u);
}

TEST(MetisPartitioner, BeatsRandomOnEdgeCutAndStaysBalanced) {
  test::ScratchDir scratch;
  const auto store = write_and_open(test::random_graph(600, 1500, 5), scratch);
  const auto metis = make_partitioner(PartitionMethod::kMetis)->partition(store, 4, 1);
  const auto random = make_partitioner(PartitionMethod::kRandom)->partition(store, 4, 1);
  EXPECT_LT(edge_cut(store.csr(), metis, false).cut, edge_cut(store.csr(), random, false).cut);
  std::vector<std::int64_t> sizes(4, 0);
  for (const auto p : metis) ++sizes[p];
  EXPECT_LT(balance(sizes), 1.1);
}

TEST(MetisPartitioner, HandlesDirectedStoresAndSelfLoops) {
  test::ScratchDir scratch;
  graph::GraphData d;
  d.directed = true;
  d.indptr = {0, 2, 3, 4, 5};  // 0->0, 0->1, 1->2, 2->3, 3->0: a directed cycle with a self-loop
  d.indices = {0, 1, 2, 3, 0};
  const auto store = write_and_open(d, scratch);
  const auto parts = make_partitioner(PartitionMethod::kMetis)->partition(store, 2, 0);
  EXPECT_EQ(parts.size(), 4u);
  EXPECT_EQ(edge_cut(store.csr(), parts, /*directed=*/true).edges, 4);
}

TEST(MetisPartitioner, OnePartIsTrivial) {
  test::ScratchDir scratch;
  const auto store = write_and_open(test::two_cliques(3), scratch);
  EXPECT_EQ(make_partitioner(PartitionMethod::kMetis)->partition(store, 1, 0), std::vector<std::int32_t>(6, 0));
}

TEST(RandomPartitioner, SeededAndIndependentOfThreadCount) {
  test::ScratchDir scratch;
  const auto store = write_and_open(test::random_graph(50000, 10, 1), scratch);
  const auto random = make_partitioner(PartitionMethod::kRandom);
  core::set_num_threads(1);
  const auto one = random->partition(store, 3, 42);
  core::set_num_threads(2);
  EXPECT_EQ(random->partition(store, 3, 42), one);
  EXPECT_NE(random->partition(store, 3, 43), one);
  std::vector<std::int64_t> sizes(3, 0);
  for (const auto p : one) ++sizes[p];
  EXPECT_LT(balance(sizes), 1.03);
}

TEST(StreamPartitioner, KeepsCommunitiesTogetherWithinTheBalanceCaps) {
  test::ScratchDir scratch;
  const auto store = test::open_sbm(scratch / "sbm", 4000, 8, 12, 0.9, 4);
  const auto stream = assign_parts(*make_stream_partitioner(), store, 4, 3);
  const auto one_pass = assign_parts(*make_stream_partitioner(1), store, 4, 3);
  const auto random = assign_parts(*make_partitioner(PartitionMethod::kRandom), store, 4, 3);
  const auto cut = [&](const std::vector<std::int32_t>& parts) { return edge_cut(store.csr(), parts, false).cut; };
  EXPECT_LT(cut(stream), cut(one_pass)) << "restreaming improves on the one pass";
  EXPECT_LT(2 * cut(stream), cut(random));
  EXPECT_EQ(stream, assign_parts(*make_stream_partitioner(), store, 4, 3)) << "deterministic";
  BalanceLoads loads(store, 4);
  for (std::int64_t v = 0; v < store.num_nodes(); ++v) loads.add(stream[v], v);
  for (int p = 0; p < 4; ++p)
    EXPECT_TRUE(loads.within_caps(p)) << "part " << p << " within the caps of nodes, edges and training nodes";
  expect_argument_error([] { make_stream_partitioner(0); }, "--stream-passes");
}

// Many communities, each far smaller than a part and sparsely linked (the shape where node-by-node
// restreaming converged slowly): placing clusters first brings the cut near METIS's.
TEST(StreamPartitioner, ManySmallCommunitiesCutNearlyAsFewEdgesAsMetis) {
  test::ScratchDir scratch;
  const auto store = test::open_sbm(scratch / "sbm", 30000, 120, 8, 0.8, 6);
  const auto cut = [&](const std::vector<std::int32_t>& parts) { return edge_cut(store.csr(), parts, false).cut; };
  const auto stream = cut(assign_parts(*make_stream_partitioner(), store, 8, 1));
  const auto metis = cut(assign_parts(*make_partitioner(PartitionMethod::kMetis), store, 8, 1));
  EXPECT_LE(stream, 1.15 * static_cast<double>(metis)) << "stream " << stream << ", metis " << metis;
}

// Label propagation and restreaming score a block of nodes in parallel against the state as the
// block began, so the parts are the same at one thread and at several.
TEST(StreamPartitioner, PartsAreTheSameAtAnyThreadCount) {
  test::ScratchDir scratch;
  const auto store = test::open_sbm(scratch / "sbm", 30000, 120, 8, 0.8, 6);
  const int threads = core::num_threads();
  core::set_num_threads(1);
  const auto serial = assign_parts(*make_stream_partitioner(), store, 8, 2);
  core::set_num_threads(4);
  const auto parallel = assign_parts(*make_stream_partitioner(), store, 8, 2);
  core::set_num_threads(threads);
  EXPECT_EQ(serial, parallel);
}

TEST(HashPartitioner, IdModuloK) {
  test::ScratchDir scratch;
  const auto store = write_and_open(test::two_cliques(5), scratch);
  const auto parts = make_partitioner(PartitionMethod::kHash)->partition(store, 3, 0);
  for (std::int64_t v = 0; v < 10; ++v) EXPECT_EQ(parts[v], v % 3);
}

TEST(Partitioner, RejectsPartCountsOutsideOneToNodes) {
  test::ScratchDir scratch;
  const auto store = write_and_open(test::two_cliques(3), scratch);
  for (const auto& [name, method] : kPartitionMethodNames) {
    if (method == PartitionMethod::kPtscotch) continue;  // distributed: tests/mpi
    const auto p = make_partitioner(method);
    EXPECT_EQ(p->name(), name);
    expect_argument_error([&] { assign_parts(*p, store, 0, 0); }, "-k");
    expect_argument_error([&] { assign_parts(*p, store, -2, 0); }, "-k");
    expect_argument_error([&] { assign_parts(*p, store, 7, 0); }, "-k");
    EXPECT_EQ(assign_parts(*p, store, 6, 0).size(), 6u);
  }
}

TEST(Partitioner, UnknownMethodNamesTheOption) {
  expect_argument_error([] { core::parse_enum(kPartitionMethodNames, "spectral", "--method"); }, "--method");
  expect_argument_error([] { make_partitioner(PartitionMethod::kPtscotch); }, "--method");
}

TEST(EdgeCut, CountsUndirectedEdgesOnce) {
  test::ScratchDir scratch;
  const auto store = write_and_open(test::two_cliques(4), scratch);  // 2 * 6 + 1 edges
  const std::vector<std::int32_t> all_apart = {0, 1, 0, 1, 0, 1, 0, 1};
  const auto cut = edge_cut(store.csr(), all_apart, false);
  EXPECT_EQ(cut.edges, 13);
  EXPECT_EQ(cut.cut, 1);
  const std::vector<std::int32_t> halves = {0, 0, 0, 0, 1, 1, 1, 1};
  EXPECT_EQ(edge_cut(store.csr(), halves, false).cut, 8);  // 4 per clique; the bridge 0-1 is inside part 0
}

}  // namespace
}  // namespace loom::partition
