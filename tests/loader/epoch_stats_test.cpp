// An epoch's totals survive the round trip through a checkpoint's numbers exactly, and numbers
// that did not come from pack_totals() are an error naming the file.
#include "loom/loader/epoch_stats.hpp"

#include <gtest/gtest.h>

#include "loom/core/error.hpp"

namespace loom::loader {
namespace {

TEST(EpochTotals, PackedTotalsComeBackExactly) {
  EpochTotals t;
  t.loss_sum = 0.1 + 0.2;
  t.train.correct = 3, t.train.labelled = 4, t.train.loss_sum = 1.25, t.train.nodes = 4;
  t.phases.fetch = 1e-7;
  t.fetched.remote_rows = 123456789012;
  t.fetched.seconds = 2.5;
  t.sampled_edges = 77;
  t.earlier_seconds = 9.75;
  const std::vector<double> packed = pack_totals(t);
  const EpochTotals back = unpack_totals(packed, "state.json");
  EXPECT_EQ(back.loss_sum, t.loss_sum);
  EXPECT_EQ(back.train.pack(), t.train.pack());
  EXPECT_EQ(back.phases.fetch, t.phases.fetch);
  EXPECT_EQ(back.fetched.remote_rows, t.fetched.remote_rows);
  EXPECT_EQ(back.fetched.seconds, t.fetched.seconds);
  EXPECT_EQ(back.sampled_edges, t.sampled_edges);
  EXPECT_EQ(back.earlier_seconds, t.earlier_seconds);
  EXPECT_EQ(pack_totals(back), packed);
  // From a file: a wrong count, or a count that is not a whole number, is an error naming it.
  EXPECT_THROW(unpack_totals(std::span(packed).first(3), "state.json"), Error);
  std::vector<double> bad = packed;
  for (double& v : bad) v = 1e300;
  EXPECT_THROW(unpack_totals(bad, "state.json"), Error);
}

}  // namespace
}  // namespace loom::loader
