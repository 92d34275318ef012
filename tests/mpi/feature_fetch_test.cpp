// Multi-rank: every rank gets the exact rows of any global ids through RemoteFetcher, with
// float32 and float16 on the wire and out (and with own and served rows gathered in one file-order sweep, ranks in step
// window by window), and the bytes counted are the rows that crossed ranks; a static cache filled from the owners
// serves its rows so that only the others travel; with a hot tier, the rows it holds are listed for the device and the
// others come packed.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <type_traits>

#include "loom/comm/communicator.hpp"
#include "loom/core/rng.hpp"
#include "loom/feature/feature_source.hpp"
#include "loom/feature/remote_fetcher.hpp"

namespace loom::feature {
namespace {

constexpr std::int64_t kDim = 5;

// Row g has values g*10 + j (exact in float16 for small g).
float value(std::int64_t g, std::int64_t j) { return static_cast<float>(g * 10 + j); }

struct Ranks {
  comm::Communicator comm = comm::Communicator::world();
  partition::PartitionBook book;
  RowTable local;
  Ranks() {
    const int k = comm.size();
    std::vector<std::int64_t> offsets(k + 1, 0);
    for (int p = 0; p < k; ++p) offsets[p + 1] = offsets[p] + 7 + 3 * p;  // uneven parts
    book = partition::PartitionBook(offsets);
    const auto range = book.range(comm.rank());
    std::vector<float> rows;
    for (auto g = range.begin; g < range.end; ++g)
      for (std::int64_t j = 0; j < kDim; ++j) rows.push_back(value(g, j));
    local = RowTable::owned(rows, kDim);
  }
};

// In file order (a table too large for the page cache), a rank gathers its own rows and the rows
// it serves in one sweep, in step with the other ranks window by window (`window_bytes`: here a
// few rows, so that there are many windows, some empty); `file_order_rank` -1: every rank sweeps
// so, otherwise that rank alone (the others sweep in step with it). Rows out as float32, or as
// float16 (`Out`): the same rows.
template <class Out = float>
void check_fetch(WireDType wire, bool file_order = false, std::int64_t window_bytes = 0, int file_order_rank = -1) {
  Ranks s;
  s.local.set_reads_in_file_order(file_order && (file_order_rank < 0 || file_order_rank == s.comm.rank()));
  RemoteFetcher fetcher(s.comm, s.book, s.local, wire);
  if (window_bytes > 0) fetcher.set_sweep_window_bytes(window_bytes);
  core::Rng rng(s.comm.rank() + 1);
  std::vector<std::int64_t> ids;
  for (int i = 0; i < 40; ++i) ids.push_back(static_cast<std::int64_t>(rng.below(s.book.num_nodes())));
  std::vector<Out> out(ids.size() * kDim);
  const auto before = s.comm.stats();
  const FetchStats stats = fetcher.fetch(ids, out.data());
  const auto after = s.comm.stats();
  std::int64_t remote = 0;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    remote += s.book.owner(ids[i]) != s.comm.rank();
    for (std::int64_t j = 0; j < kDim; ++j) {
      float got = 0;
      if constexpr (std::is_same_v<Out, float>)
        got = out[i * kDim + j];
      else
        got = format::half_to_float(out[i * kDim + j]);
      EXPECT_EQ(got, value(ids[i], j)) << "id " << ids[i];
    }
  }
  EXPECT_EQ(stats.remote_rows, remote);
  EXPECT_EQ(stats.local_rows + stats.remote_rows, static_cast<std::int64_t>(ids.size()));
  const std::int64_t wire_bytes = wire == WireDType::kFloat16 ? 2 : 4;
  EXPECT_EQ(stats.bytes, remote * kDim * wire_bytes);
  // Received on the features channel: the rows plus the ids other ranks asked us for are sent.
  const auto received = (after - before)[comm::Channel::features].bytes_received;
  EXPECT_GE(static_cast<std::int64_t>(received), stats.bytes);
}

// The tier holds every other own row: those are listed (position, slot) and the rest of the batch,
// own and remote rows, is written packed in batch order.
TEST(FeatureSource, HotTierRowsAreListedAndTheOthersComePacked) {
  Ranks s;
  RemoteFetcher fetcher(s.comm, s.book, s.local, WireDType::kFloat32);
  std::vector<double> score(static_cast<std::size_t>(s.local.rows()));
  for (std::size_t r = 0; r < score.size(); ++r) score[r] = r % 2 == 0 ? 1.0 : 0.0;
  const HotTier tier = HotTier::hottest(score, (s.local.rows() + 1) / 2);
  const FeatureSource source(fetcher, nullptr, nullptr, &tier);
  core::Rng rng(s.comm.rank() + 7);
  std::vector<std::int64_t> ids;
  while (static_cast<std::int64_t>(ids.size()) < s.book.num_nodes() / 2 + 1) {
    const auto g = static_cast<std::int64_t>(rng.below(s.book.num_nodes()));
    if (std::find(ids.begin(), ids.end(), g) == ids.end()) ids.push_back(g);
  }
  std::vector<float> out(ids.size() * kDim, -1.0f);
  TierRows tier_rows;
  const FetchStats stats = source.gather(ids, out.data(), &tier_rows);
  const auto mine = s.book.range(s.comm.rank());
  std::vector<std::int64_t> hot, staged;
  for (std::size_t i = 0; i < ids.size(); ++i)
    (mine.contains(ids[i]) && (ids[i] - mine.begin) % 2 == 0 ? hot : staged).push_back(static_cast<std::int64_t>(i));
  EXPECT_EQ(stats.device_rows, static_cast<std::int64_t>(hot.size()));
  if (hot.empty()) {
    EXPECT_TRUE(tier_rows.staged.empty()) << "no split: every row in batch order";
    return;
  }
  EXPECT_EQ(tier_rows.positions, hot);
  EXPECT_EQ(tier_rows.staged, staged);
  for (std::size_t k = 0; k < hot.size(); ++k) EXPECT_EQ(tier.rows()[tier_rows.slots[k]], ids[hot[k]] - mine.begin);
  for (std::size_t j = 0; j < staged.size(); ++j)
    for (std::int64_t d = 0; d < kDim; ++d) EXPECT_EQ(out[j * kDim + d], value(ids[staged[j]], d));
}

// Own rows read in place (mapped): every own row outside the tier is listed with its own row,
// and only the other ranks' rows are written, packed in batch order.
TEST(FeatureSource, MappedOwnRowsAreListedAndOnlyRemoteRowsComePacked) {
  Ranks s;
  RemoteFetcher fetcher(s.comm, s.book, s.local, WireDType::kFloat32);
  std::vector<double> score(static_cast<std::size_t>(s.local.rows()), 0.0);
  score[0] = 1.0;
  const HotTier tier = HotTier::hottest(score, 1);  // own row 0
  const FeatureSource source(fetcher, nullptr, nullptr, &tier, /*own_rows_mapped=*/true);
  std::vector<std::int64_t> ids(static_cast<std::size_t>(s.book.num_nodes()));
  std::iota(ids.rbegin(), ids.rend(), 0);  // every row, last first
  std::vector<float> out(ids.size() * kDim, -1.0f);
  TierRows tier_rows;
  const FetchStats stats = source.gather(ids, out.data(), &tier_rows);
  const auto mine = s.book.range(s.comm.rank());
  std::vector<std::int64_t> hot, mapped, mapped_rows, staged;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const auto p = static_cast<std::int64_t>(i);
    if (!mine.contains(ids[i])) {
      staged.push_back(p);
    } else if (ids[i] == mine.begin) {
      hot.push_back(p);
    } else {
      mapped.push_back(p);
      mapped_rows.push_back(ids[i] - mine.begin);
    }
  }
  EXPECT_EQ(tier_rows.positions, hot);
  EXPECT_EQ(tier_rows.mapped_positions, mapped);
  EXPECT_EQ(tier_rows.mapped_rows, mapped_rows);
  EXPECT_EQ(tier_rows.staged, staged);
  EXPECT_EQ(stats.device_rows, 1);
  EXPECT_EQ(stats.local_rows, s.local.rows());
  EXPECT_EQ(stats.remote_rows, static_cast<std::int64_t>(staged.size()));
  for (std::size_t j = 0; j < staged.size(); ++j)
    for (std::int64_t d = 0; d < kDim; ++d) EXPECT_EQ(out[j * kDim + d], value(ids[staged[j]], d));
}

TEST(RemoteFetcher, Float32RowsAreExact) { check_fetch(WireDType::kFloat32); }
TEST(RemoteFetcher, Float16RowsAreExactForSmallIntegers) { check_fetch(WireDType::kFloat16); }
TEST(RemoteFetcher, OneFileOrderSweepForOwnAndServedRowsIsExact) {
  check_fetch(WireDType::kFloat32, true);
  check_fetch(WireDType::kFloat16, true);
}
TEST(RemoteFetcher, RanksSweepingInStepWindowByWindowGetTheSameRows) {
  constexpr std::int64_t kThreeRows = 3 * kDim * 4;
  check_fetch(WireDType::kFloat32, true, kThreeRows);
  check_fetch(WireDType::kFloat16, true, kThreeRows);
  check_fetch(WireDType::kFloat32, true, kThreeRows, /*file_order_rank=*/0);
  check_fetch(WireDType::kFloat32, true, kThreeRows, /*file_order_rank=*/1);
}
TEST(RemoteFetcher, Float16OutputIsExactForSmallIntegers) {
  check_fetch<format::Half>(WireDType::kFloat32);
  check_fetch<format::Half>(WireDType::kFloat16);
  check_fetch<format::Half>(WireDType::kFloat16, true, 3 * kDim * 4);
}

TEST(RemoteFetcher, RankWithNothingToFetchStillTakesPart) {
  Ranks s;
  RemoteFetcher fetcher(s.comm, s.book, s.local, WireDType::kFloat32);
  std::vector<std::int64_t> ids;
  if (s.comm.rank() == 0) ids = {s.book.num_nodes() - 1};
  std::vector<float> out(ids.size() * kDim);
  fetcher.fetch(ids, out.data());
  if (s.comm.rank() == 0) {
    EXPECT_EQ(out[0], value(s.book.num_nodes() - 1, 0));
  }
}

// Each rank caches every other remote id (the odd ones).
std::vector<std::int64_t> odd_remote_ids(const Ranks& s) {
  std::vector<std::int64_t> ids;
  for (std::int64_t g = 1; g < s.book.num_nodes(); g += 2)
    if (s.book.owner(g) != s.comm.rank()) ids.push_back(g);
  return ids;
}

void check_cached_gather(format::DType storage) {
  Ranks s;
  RemoteFetcher fetcher(s.comm, s.book, s.local, WireDType::kFloat32);
  const auto cached_ids = odd_remote_ids(s);
  const StaticCache cache = StaticCache::fill(fetcher, cached_ids, storage);
  ASSERT_EQ(cache.size(), static_cast<std::int64_t>(cached_ids.size()));
  EXPECT_EQ(cache.fill_stats().remote_rows, cache.size());
  const FeatureSource source(fetcher, &cache);

  std::vector<std::int64_t> ids;
  for (std::int64_t g = 0; g < s.book.num_nodes(); ++g) ids.push_back(g);
  std::vector<float> out(ids.size() * kDim, -1.0f);
  const FetchStats stats = source.gather(ids, out.data());
  for (std::size_t i = 0; i < ids.size(); ++i)
    for (std::int64_t j = 0; j < kDim; ++j) ASSERT_EQ(out[i * kDim + j], value(ids[i], j)) << "id " << ids[i];
  const std::int64_t own = s.book.range(s.comm.rank()).size();
  EXPECT_EQ(stats.local_rows, own);
  EXPECT_EQ(stats.cached_rows, cache.size());
  EXPECT_EQ(stats.remote_rows, s.book.num_nodes() - own - cache.size());
  EXPECT_EQ(stats.bytes, stats.remote_rows * kDim * 4);
}

TEST(StaticCache, ServesItsRowsAndOnlyUncachedRowsTravel) { check_cached_gather(format::DType::kFloat32); }
TEST(StaticCache, Float16StorageKeepsSmallIntegersExact) { check_cached_gather(format::DType::kFloat16); }

TEST(StaticCache, RankWithAnEmptyCacheStillTakesPartInTheFill) {
  Ranks s;
  RemoteFetcher fetcher(s.comm, s.book, s.local, WireDType::kFloat32);
  std::vector<std::int64_t> ids;
  if (s.comm.rank() == 1) ids = odd_remote_ids(s);
  const StaticCache cache = StaticCache::fill(fetcher, ids, format::DType::kFloat32);
  EXPECT_EQ(cache.size(), static_cast<std::int64_t>(ids.size()));
  if (!ids.empty()) {
    std::vector<float> row(kDim);
    cache.rows().row(cache.find(ids[0]), row.data());
    EXPECT_EQ(row[0], value(ids[0], 0));
  }
}

}  // namespace
}  // namespace loom::feature
