#include "loom/partition/partition_book.hpp"

#include <gtest/gtest.h>

#include "loom/core/error.hpp"

namespace loom::partition {
namespace {

TEST(PartitionBook, OwnerLocalAndGlobalAreInverse) {
  const PartitionBook book({0, 3, 3, 7, 10});  // part 1 is empty
  EXPECT_EQ(book.num_parts(), 4);
  EXPECT_EQ(book.num_nodes(), 10);
  const int expected_owner[] = {0, 0, 0, 2, 2, 2, 2, 3, 3, 3};
  for (std::int64_t g = 0; g < 10; ++g) {
    const int p = book.owner(g);
    EXPECT_EQ(p, expected_owner[g]) << g;
    EXPECT_TRUE(book.range(p).contains(g));
    EXPECT_EQ(book.global(p, book.local(g)), g);
  }
  EXPECT_EQ(book.local(7), 0);
  EXPECT_EQ(book.range(1).size(), 0);
}

TEST(PartitionBook, LeadingAndTrailingEmptyParts) {
  const PartitionBook book({0, 0, 4, 4});
  EXPECT_EQ(book.owner(0), 1);
  EXPECT_EQ(book.owner(3), 1);
}

TEST(PartitionBook, RejectsMalformedOffsets) {
  EXPECT_THROW(PartitionBook({0}), Error);
  EXPECT_THROW(PartitionBook({1, 4}), Error);
  EXPECT_THROW(PartitionBook({0, 5, 3}), Error);
}

TEST(PartitionBook, JsonRoundTrip) {
  const PartitionBook book({0, 2, 9, 11});
  EXPECT_EQ(PartitionBook::from_json(book.to_json(), "meta.json"), book);
  try {
    PartitionBook::from_json(nlohmann::json::parse("[0, \"x\"]"), "meta.json");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.file(), "meta.json");
  }
  EXPECT_THROW(PartitionBook::from_json(nlohmann::json::parse("[0, 4, 2]"), "meta.json"), Error);
}

}  // namespace
}  // namespace loom::partition
