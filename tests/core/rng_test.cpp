#include "loom/core/rng.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace loom::core {
namespace {

TEST(Rng, SameSeedSameStream) {
  Rng a(42), b(42);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(a.next(), b.next());
}

TEST(Rng, SplitIsIndependentOfParentUse) {
  Rng a(7);
  const auto child_before = a.split(3).next();
  a.next();
  a.next();
  EXPECT_EQ(a.split(3).next(), child_before);
  EXPECT_NE(a.split(3).next(), a.split(4).next());
}

TEST(Rng, BelowIsUnbiasedOnSmallRange) {
  Rng rng(1);
  std::vector<int> counts(3, 0);
  const int n = 300000;
  for (int i = 0; i < n; ++i) ++counts[rng.below(3)];
  for (int c : counts) EXPECT_NEAR(c, n / 3, n / 100);
}

TEST(Rng, UniformInUnitInterval) {
  Rng rng(9);
  double sum = 0;
  for (int i = 0; i < 100000; ++i) {
    const double u = rng.uniform();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    sum += u;
  }
  EXPECT_NEAR(sum / 100000, 0.5, 0.01);
}

}  // namespace
}  // namespace loom::core
