// Belady's MIN over minibatch traces: hand-checked cases, and on random traces never more fetches
// than LRU (starting empty) or the best static buffer (filled for free). The online lookahead
// policy: never better than the bound, equal to it when it sees the whole trace.
#include "loom/feature/prefetch_bound.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <list>
#include <map>
#include <set>

#include "loom/core/rng.hpp"

namespace loom::feature {
namespace {

using Trace = std::vector<std::vector<std::int64_t>>;

TEST(PrefetchBound, BeladyHandCases) {
  const Trace alternating = {{1}, {2}, {1}, {2}};
  EXPECT_EQ(belady_fetches(alternating, 0), 4);
  // Capacity 1: starts with 1 (used first); 2 is fetched, kept out since 1 comes back sooner; then
  // 1 is never used again, so the buffer frees and 2 is fetched once more.
  EXPECT_EQ(belady_fetches(alternating, 1), 2);
  EXPECT_EQ(belady_fetches(alternating, 2), 0);
  // A row kept across minibatches it is not used in.
  const Trace gap = {{1, 2}, {3}, {1}};
  EXPECT_EQ(belady_fetches(gap, 1), 2);  // holds 1 throughout; 2 and 3 (never used again) once each
}

std::int64_t lru_fetches(const Trace& trace, std::int64_t capacity) {
  std::list<std::int64_t> order;  // most recent first
  std::int64_t fetched = 0;
  for (const auto& step : trace) {
    for (const auto id : step) {
      const auto it = std::find(order.begin(), order.end(), id);
      if (it == order.end())
        ++fetched;
      else
        order.erase(it);
      order.push_front(id);
    }
    while (static_cast<std::int64_t>(order.size()) > capacity) order.pop_back();
  }
  return fetched;
}

std::int64_t static_fetches(const Trace& trace, std::int64_t capacity) {
  std::map<std::int64_t, std::int64_t> uses;
  std::int64_t total = 0;
  for (const auto& step : trace)
    for (const auto id : step) ++uses[id], ++total;
  std::vector<std::int64_t> counts;
  for (const auto& [id, n] : uses) counts.push_back(n);
  std::sort(counts.begin(), counts.end(), std::greater<>());
  for (std::int64_t i = 0; i < std::min<std::int64_t>(capacity, static_cast<std::int64_t>(counts.size())); ++i)
    total -= counts[static_cast<std::size_t>(i)];
  return total;
}

// `steps` minibatches of up to `draws` distinct ids drawn from [0, range).
Trace random_trace(core::Rng& rng, int steps, int draws, std::uint64_t range) {
  Trace trace(static_cast<std::size_t>(steps));
  for (auto& step : trace) {
    std::set<std::int64_t> ids;
    for (int i = 0; i < draws; ++i) ids.insert(static_cast<std::int64_t>(rng() % range));
    step.assign(ids.begin(), ids.end());
  }
  return trace;
}

TEST(PrefetchBound, BeladyNeverWorseThanLruOrBestStatic) {
  core::Rng rng(5);
  for (int trial = 0; trial < 50; ++trial) {
    const Trace trace = random_trace(rng, 40, 6, trial % 2 ? 20 : 60);
    for (const std::int64_t capacity : {0, 3, 10, 30}) {
      const auto belady = belady_fetches(trace, capacity);
      EXPECT_LE(belady, lru_fetches(trace, capacity)) << trial << " " << capacity;
      EXPECT_LE(belady, static_fetches(trace, capacity)) << trial << " " << capacity;
    }
  }
}

// Rows in order of first use: Belady's initial fill.
std::vector<std::int64_t> first_use_order(const Trace& trace) {
  std::vector<std::int64_t> order;
  std::set<std::int64_t> seen;
  for (const auto& step : trace)
    for (const auto id : step)
      if (seen.insert(id).second) order.push_back(id);
  return order;
}

TEST(PrefetchBound, LookaheadHandCases) {
  // Capacity 1, starting empty: row 1 is fetched at step 0 and kept, because step 1 (in the
  // window) uses it; 2 and 3 are fetched once each.
  const Trace trace = {{1, 2}, {1, 3}, {2}};
  EXPECT_EQ(lookahead_fetches(trace, 1, 1, {}), 4);
  // Without a window it keeps the row used most often so far (ties: the higher id): 2 after
  // step 0, then 1 (used twice) after step 1, so step 2 fetches 2 again: every access fetches.
  EXPECT_EQ(lookahead_fetches(trace, 1, 0, {}), 5);
  EXPECT_EQ(lookahead_fetches(trace, 0, 1, {}), 5);
  // A free initial fill counts: start with 1 and 2.
  EXPECT_EQ(lookahead_fetches(trace, 2, 1, std::vector<std::int64_t>{1, 2}), 1);
}

TEST(PrefetchBound, LookaheadIsBoundedByBeladyAndMeetsItWithTheWholeTraceInSight) {
  core::Rng rng(9);
  for (int trial = 0; trial < 40; ++trial) {
    const Trace trace = random_trace(rng, 30, 5, trial % 2 ? 15 : 50);
    const auto first = first_use_order(trace);
    for (const std::int64_t capacity : {0, 2, 8, 20}) {
      const auto belady = belady_fetches(trace, capacity);
      for (const std::int64_t window : {0, 1, 4})
        EXPECT_GE(lookahead_fetches(trace, capacity, window, first), belady) << trial << " " << capacity;
      EXPECT_EQ(lookahead_fetches(trace, capacity, static_cast<std::int64_t>(trace.size()), first), belady)
          << trial << " " << capacity;
    }
  }
}

}  // namespace
}  // namespace loom::feature
