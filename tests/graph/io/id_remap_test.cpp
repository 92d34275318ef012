#include "loom/graph/io/id_remap.hpp"

#include <gtest/gtest.h>

#include "loom/core/rng.hpp"

namespace loom::graph::io {
namespace {

using Ids = std::vector<std::int64_t>;

TEST(IntIdRemap, FirstSeenIdsThenSortedRanks) {
  IntIdRemap remap;
  EXPECT_EQ(remap.insert(50), 0);
  EXPECT_EQ(remap.insert(-3), 1);
  EXPECT_EQ(remap.insert(50), 0);
  EXPECT_EQ(remap.insert(9000000000LL), 2);
  Ids sorted;
  const auto order = remap.finish(sorted);
  EXPECT_EQ(sorted, (Ids{-3, 50, 9000000000LL}));
  EXPECT_EQ(order.rank, (Ids{1, 0, 2}));
  EXPECT_FALSE(order.identity);
  Ids provisional{0, 1, 2, 0};
  apply_order(order, provisional);
  EXPECT_EQ(provisional, (Ids{1, 0, 2, 1}));
}

TEST(IntIdRemap, GrowsAndAgreesWithASortedReference) {
  IntIdRemap remap;
  core::Rng rng(7);
  Ids originals;
  for (int i = 0; i < 100000; ++i) originals.push_back(static_cast<std::int64_t>(rng.next() >> 20));
  Ids provisional;
  for (const auto id : originals) provisional.push_back(remap.insert(id));
  Ids sorted;
  const auto order = remap.finish(sorted);
  apply_order(order, provisional);
  Ids reference = originals;
  std::sort(reference.begin(), reference.end());
  reference.erase(std::unique(reference.begin(), reference.end()), reference.end());
  EXPECT_EQ(sorted, reference);
  for (std::size_t i = 0; i < originals.size(); ++i) ASSERT_EQ(sorted[provisional[i]], originals[i]);
}

TEST(IntIdRemap, DenseIdsAreIdentity) {
  IntIdRemap remap;
  for (const auto id : {2, 0, 1, 2}) remap.insert(id);
  Ids sorted;
  EXPECT_TRUE(remap.finish(sorted).identity);
}

TEST(StringIdRemap, SortedByteOrder) {
  StringIdRemap remap;
  EXPECT_EQ(remap.insert("carol"), 0);
  EXPECT_EQ(remap.insert("Bob"), 1);
  EXPECT_EQ(remap.insert("carol"), 0);
  EXPECT_EQ(remap.insert("alice"), 2);
  std::vector<std::string> names;
  const auto order = remap.finish(names);
  EXPECT_EQ(names, (std::vector<std::string>{"Bob", "alice", "carol"}));
  EXPECT_EQ(order.rank, (Ids{2, 0, 1}));
}

}  // namespace
}  // namespace loom::graph::io
