// Prefetch buffer: hits serve the buffered rows, misses are counted per remote vertex, idle rows
// become eviction candidates, and an eviction replaces them with the most-missed vertices. With
// lookahead, fetched rows the next minibatches use are kept, soonest first.
#include <gtest/gtest.h>

#include "loom/core/error.hpp"
#include "loom/feature/prefetch_buffer.hpp"

namespace loom::feature {
namespace {

constexpr std::int64_t kDim = 2;

std::vector<float> rows_of(const std::vector<std::int64_t>& ids) {
  std::vector<float> rows;
  for (auto id : ids) rows.insert(rows.end(), {static_cast<float>(id), static_cast<float>(-id)});
  return rows;
}

// The rank owns ids [0, 5) of 50; capacity 2 (half of a 4-vertex halo); candidates after 2 idle
// minibatches.
PrefetchBuffer make_buffer() {
  PrefetchOptions o;
  o.fraction = 0.5;
  o.period = 2;
  o.initial = PrefetchStart::kEmpty;
  return PrefetchBuffer({0, 5}, 50, PrefetchBuffer::capacity_for(4, o), kDim, o);
}

// Runs one minibatch of `ids` (all remote) through lookup; returns the ids not served.
std::vector<std::int64_t> minibatch(PrefetchBuffer& b, const std::vector<std::int64_t>& ids, std::vector<float>& out) {
  std::vector<std::int64_t> positions(ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i) positions[i] = static_cast<std::int64_t>(i);
  out.assign(ids.size() * kDim, 0.0f);
  std::vector<std::int64_t> missing;
  for (auto p : b.lookup(ids, positions, out.data())) missing.push_back(ids[p]);
  return missing;
}

TEST(PrefetchBuffer, EvictionFillsEmptySlotsWithTheMostMissedVertices) {
  auto b = make_buffer();
  ASSERT_EQ(b.capacity(), 2);
  std::vector<float> out;
  EXPECT_EQ(minibatch(b, {30, 40, 45}, out), (std::vector<std::int64_t>{30, 40, 45}));
  b.end_step();
  minibatch(b, {40}, out);
  b.end_step();
  EXPECT_EQ(b.misses(), 4);
  EXPECT_TRUE(b.replacements().empty()) << "no eviction was requested";
  b.request_eviction();
  const auto ids = b.replacements();
  EXPECT_EQ(ids, (std::vector<std::int64_t>{40, 30}));  // most missed first, then by id
  b.install(ids, rows_of(ids).data());
  EXPECT_EQ(b.occupancy(), 2);
  EXPECT_TRUE(minibatch(b, {30, 40, 10}, out) == std::vector<std::int64_t>{10});
  EXPECT_EQ(out[0], 30.0f);
  EXPECT_EQ(out[3], -40.0f);
  EXPECT_EQ(b.hits(), 2);
}

TEST(PrefetchBuffer, IdleRowsBecomeCandidatesAndAreReplaced) {
  auto b = make_buffer();
  std::vector<float> out;
  minibatch(b, {10, 20}, out);
  b.request_eviction();
  auto ids = b.replacements();
  b.install(ids, rows_of(ids).data());  // buffer: 10, 20
  for (int step = 0; step < 3; ++step) {
    b.end_step();
    minibatch(b, {10, 30}, out);  // 10 hits, 20 idles, 30 misses
  }
  EXPECT_EQ(b.candidates(), 1);  // 20 idle for 3 > 2 minibatches
  EXPECT_LT(b.mean_score(), 1.0);
  b.request_eviction();
  ids = b.replacements();
  EXPECT_EQ(ids, (std::vector<std::int64_t>{30}));
  b.install(ids, rows_of(ids).data());
  EXPECT_EQ(b.rows_replaced(), 3);
  EXPECT_EQ(b.evictions(), 2);
  EXPECT_TRUE(minibatch(b, {10, 30, 20}, out) == std::vector<std::int64_t>{20});
}

TEST(PrefetchBuffer, RejectsFractionsOutsideZeroToOne) {
  PrefetchOptions o;
  o.fraction = 0;
  EXPECT_THROW(check(o), Error);
  o.fraction = 1.5;
  EXPECT_THROW(check(o), Error);
  o.fraction = 1;
  EXPECT_NO_THROW(check(o));
  EXPECT_THROW(core::parse_enum(kPrefetchStartNames, "lru", "--prefetch-init"), Error);
}

// Runs one minibatch of `ids` with the minibatches `ahead` in sight: lookup, the "fetch" of the
// misses (rows_of), admit. Returns the ids not served.
std::vector<std::int64_t> lookahead_minibatch(PrefetchBuffer& b, const std::vector<std::int64_t>& ids,
                                              const std::vector<std::vector<std::int64_t>>& ahead) {
  std::vector<std::span<const std::int64_t>> upcoming(ahead.begin(), ahead.end());
  b.see_ahead(upcoming);
  std::vector<std::int64_t> positions(ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i) positions[i] = static_cast<std::int64_t>(i);
  std::vector<float> out(ids.size() * kDim, 0.0f);
  const auto missing = b.lookup(ids, positions, out.data());
  std::vector<std::int64_t> missed;
  for (const auto p : missing) {
    missed.push_back(ids[p]);
    out[p * kDim] = static_cast<float>(ids[p]);
    out[p * kDim + 1] = static_cast<float>(-ids[p]);
  }
  b.admit(ids, missing, out.data());
  b.end_step();
  return missed;
}

TEST(PrefetchBuffer, LookaheadKeepsTheFetchedRowsUsedSoonest) {
  PrefetchOptions o;
  o.initial = PrefetchStart::kEmpty;
  o.lookahead = 2;
  PrefetchBuffer b({0, 5}, 50, 2, kDim, o);
  // 30 is used two minibatches on, 40 next, 45 never in sight: 40 and 30 are kept.
  EXPECT_EQ(lookahead_minibatch(b, {30, 40, 45}, {{40, 10}, {30}}), (std::vector<std::int64_t>{30, 40, 45}));
  EXPECT_EQ(b.rows_admitted(), 2);
  EXPECT_EQ(b.occupancy(), 2);
  // 40 hits and goes out of sight; 20 is fetched and used two minibatches on, so it takes 40's
  // slot, while 30 (used next) stays.
  EXPECT_EQ(lookahead_minibatch(b, {40, 20}, {{30}, {20}}), (std::vector<std::int64_t>{20}));
  EXPECT_EQ(b.rows_admitted(), 3);
  std::vector<float> out;
  EXPECT_EQ(minibatch(b, {30, 20}, out), std::vector<std::int64_t>{});
  EXPECT_EQ(out[0], 30.0f);
  EXPECT_EQ(out[3], -20.0f);
  EXPECT_EQ(b.hits(), 3);
  o.lookahead = -1;
  EXPECT_THROW(PrefetchBuffer({0, 5}, 50, 2, kDim, o), Error);
}

// A sparse buffer's rows: id v's row holds column v % 7 with value v (and column 6 with value 1
// for odd v), as its entries.
graph::SparseRows sparse_rows_of(const std::vector<std::int64_t>& ids) {
  graph::SparseRows rows;
  for (const auto id : ids) {
    rows.indices.push_back(static_cast<std::int32_t>(id % 6));
    rows.values.push_back(static_cast<float>(id));
    if (id % 2 == 1) {
      rows.indices.push_back(6);
      rows.values.push_back(1);
    }
    rows.indptr.push_back(rows.nnz());
  }
  return rows;
}

TEST(PrefetchBuffer, SparseRowsAreHeldAsTheirEntriesAndServedBySlot) {
  PrefetchOptions o;
  o.initial = PrefetchStart::kEmpty;
  o.lookahead = 1;
  PrefetchBuffer b({0, 5}, 50, 2, /*dim=*/7, o, /*sparse_rows=*/true);
  EXPECT_TRUE(b.sparse_rows());
  const std::vector<std::int64_t> ids{31, 40};
  const std::vector<std::int64_t> positions{0, 1};
  std::vector<std::int64_t> hit_positions, hit_slots;
  EXPECT_EQ(b.lookup_slots(ids, positions, hit_positions, hit_slots), positions);
  b.request_eviction();
  const auto wanted = b.replacements();
  ASSERT_EQ(wanted, (std::vector<std::int64_t>{31, 40}));
  const graph::SparseRows fetched = sparse_rows_of(wanted);
  b.install(wanted, [&](std::int64_t i) { return entries_of(fetched, i); });
  EXPECT_EQ(b.row_bytes(), 3 * 8);  // three entries of 4 + 4 bytes
  b.end_step();
  EXPECT_TRUE(b.lookup_slots(ids, positions, hit_positions, hit_slots).empty());
  ASSERT_EQ(hit_slots.size(), 2u);
  const RowTable::SparseEntries first = b.slot_entries(hit_slots[0]);
  EXPECT_EQ(std::vector<std::int32_t>(first.columns.begin(), first.columns.end()), (std::vector<std::int32_t>{1, 6}));
  EXPECT_EQ(first.value(0), 31.0f);
  EXPECT_EQ(first.value(1), 1.0f);
  EXPECT_THROW(b.lookup(ids, positions, nullptr), Error) << "sparse rows are not copied out dense";
  // Lookahead: 45, fetched now and used next, takes a slot (40 and 31 go out of sight).
  const std::vector<std::int64_t> next{45};
  const std::vector<std::span<const std::int64_t>> ahead{std::span<const std::int64_t>(next)};
  b.see_ahead(ahead);
  const std::vector<std::int64_t> batch{45};
  const graph::SparseRows row45 = sparse_rows_of(batch);
  b.admit(batch, std::vector<std::int64_t>{0}, [&](std::int64_t) { return entries_of(row45, 0); });
  EXPECT_EQ(b.rows_admitted(), 1);
  hit_positions.clear(), hit_slots.clear();
  EXPECT_TRUE(b.lookup_slots(batch, std::vector<std::int64_t>{0}, hit_positions, hit_slots).empty());
  EXPECT_EQ(b.slot_entries(hit_slots[0]).value(0), 45.0f);
}

}  // namespace
}  // namespace loom::feature
