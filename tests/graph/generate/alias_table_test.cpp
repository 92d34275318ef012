#include "loom/graph/generate/alias_table.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "loom/core/error.hpp"

namespace loom::graph::generate {
namespace {

TEST(AliasTable, SamplesInProportionToWeights) {
  const std::vector<double> w{1, 0, 3, 6};
  const AliasTable table(w);
  core::Rng rng(2);
  std::vector<int> count(4, 0);
  const int draws = 200000;
  for (int i = 0; i < draws; ++i) ++count.at(table.sample(rng));
  EXPECT_EQ(count[1], 0);
  EXPECT_NEAR(count[0], draws * 0.1, draws * 0.005);
  EXPECT_NEAR(count[2], draws * 0.3, draws * 0.005);
  EXPECT_NEAR(count[3], draws * 0.6, draws * 0.005);
}

TEST(AliasTable, RejectsBadWeights) {
  EXPECT_THROW(AliasTable(std::vector<double>{}), Error);
  EXPECT_THROW(AliasTable(std::vector<double>{0, 0}), Error);
  EXPECT_THROW(AliasTable(std::vector<double>{1, -1}), Error);
}

}  // namespace
}  // namespace loom::graph::generate
