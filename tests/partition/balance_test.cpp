#include "loom/partition/balance.hpp"

#include <gtest/gtest.h>

#include "loom/core/parallel.hpp"
#include "loom/partition/partitioner.hpp"
#include "loom/partition/quality.hpp"
#include "partition/test_graphs.hpp"
#include "support/test_support.hpp"

namespace loom::partition {
namespace {

graph::GraphStore sbm_store(const test::ScratchDir& scratch) {
  return test::open_sbm(scratch / "sbm", 3000, 6, 10, 0.9, 8);
}

bool all_within_caps(const graph::GraphStore& store, const std::vector<std::int32_t>& parts, int k) {
  BalanceLoads loads(store, k);
  for (std::int64_t v = 0; v < store.num_nodes(); ++v) loads.add(parts[v], v);
  for (int p = 0; p < k; ++p)
    if (!loads.within_caps(p)) return false;
  return true;
}

TEST(BalanceLoads, CapsEachConstraintAtItsShareTimesTheSlack) {
  test::ScratchDir scratch;
  const auto store = sbm_store(scratch);
  BalanceLoads loads(store, 4);
  std::int64_t placed = 0;
  for (std::int64_t v = 0; v < store.num_nodes() && loads.fits(0, v); ++v, ++placed) loads.add(0, v);
  EXPECT_GT(placed, 0);
  EXPECT_LE(placed, static_cast<std::int64_t>(1.05 * 3000 / 4) + 1) << "no part above 1.05 x its share of nodes";
  EXPECT_TRUE(loads.within_caps(0));
  EXPECT_EQ(loads.nodes(0), placed);
}

TEST(Rebalance, BringsEveryPartWithinTheCapsAndKeepsMostOfTheCut) {
  test::ScratchDir scratch;
  const auto store = sbm_store(scratch);
  const int k = 4;
  // A good but lopsided partition: the stream partition with part 0 given half of part 1.
  auto parts = assign_parts(*make_stream_partitioner(), store, k, 1);
  for (std::int64_t v = 0; v < store.num_nodes(); v += 2)
    if (parts[v] == 1) parts[v] = 0;
  ASSERT_FALSE(all_within_caps(store, parts, k));
  const auto before = edge_cut(store.csr(), parts, false).cut;
  auto repaired = parts;
  const std::int64_t moved = rebalance(store, repaired, k);
  EXPECT_TRUE(all_within_caps(store, repaired, k));
  EXPECT_GT(moved, 0);
  EXPECT_LE(moved, store.num_nodes() / 4) << "moves only what the caps need";
  EXPECT_LE(edge_cut(store.csr(), repaired, false).cut, before + before / 4);

  core::set_num_threads(1);
  auto serial = parts;
  rebalance(store, serial, k);
  core::set_num_threads(2);
  EXPECT_EQ(serial, repaired) << "deterministic at any thread count";
}

TEST(Rebalance, LeavesABalancedPartitionAlone) {
  test::ScratchDir scratch;
  const auto store = sbm_store(scratch);
  auto parts = assign_parts(*make_stream_partitioner(), store, 3, 2);
  const auto before = parts;
  EXPECT_EQ(rebalance(store, parts, 3), 0);
  EXPECT_EQ(parts, before);
}

}  // namespace
}  // namespace loom::partition
