// FeatureSource: what trainers read features through. gather(global ids) serves each id from the
// first tier that holds it: this rank's own rows, its static cache, its prefetch buffer; the
// rest travel in one batched request/response through the RemoteFetcher, together with the
// rows a pending prefetch-buffer eviction brings in. Reports how many rows each tier served.
// With a HotTier, own rows that it holds are left to the caller (who keeps them in device memory)
// when gather() is given a TierRows to list them in; the other rows are then written packed, so
// that only they travel to the device. With `own_rows_mapped` (the device reads the own rows in
// place from pinned host memory), every other own row is listed too, and only cached and remote
// rows are written.
// gather() is COLLECTIVE, like RemoteFetcher::fetch(), and updates the prefetch buffer (hits,
// misses, decay clock), so one thread at a time may call it.
#pragma once

#include <cstdint>
#include <span>

#include "loom/feature/hot_tier.hpp"
#include "loom/feature/prefetch_buffer.hpp"
#include "loom/feature/remote_fetcher.hpp"
#include "loom/feature/static_cache.hpp"

namespace loom::feature {

class FeatureSource {
 public:
  // `cache` and `buffer` may be null; what they point to must outlive the source.
  explicit FeatureSource(const RemoteFetcher& fetcher, const StaticCache* cache = nullptr,
                         PrefetchBuffer* buffer = nullptr, const HotTier* hot_tier = nullptr,
                         bool own_rows_mapped = false)
      : fetcher_(&fetcher), cache_(cache), buffer_(buffer), hot_tier_(hot_tier), own_rows_mapped_(own_rows_mapped) {}

  std::int64_t dim() const { return fetcher_->dim(); }
  const RemoteFetcher& fetcher() const { return *fetcher_; }
  PrefetchBuffer* buffer() const { return buffer_; }

  // Collective. out[i*dim ..] = row of ids[i], except, when `tier_rows` is given, the own rows
  // the hot tier holds (and, mapped, the other own rows): those are listed there (position, slot
  // or own row), and out holds the other rows packed, in batch order (their positions in
  // tier_rows->staged). `upcoming`: the input ids of
  // the minibatches sampled after this one, for the buffer's lookahead.
  FetchStats gather(std::span<const std::int64_t> ids, float* out, TierRows* tier_rows = nullptr,
                    std::span<const std::span<const std::int64_t>> upcoming = {}) const;
  // Collective. Every row as float16 (rounded as RowTable::row does), from the own rows, the
  // static cache and other ranks; not with a prefetch buffer (whose rows are float32).
  FetchStats gather(std::span<const std::int64_t> ids, format::Half* out) const;
  // Collective, from a sparse store: the rows of ids as sparse rows into `out` (replaced; every
  // value stored), from the own rows, the static cache, the prefetch buffer (a sparse one,
  // told `upcoming` as gather() tells it) and other ranks, never widened.
  FetchStats gather_sparse(std::span<const std::int64_t> ids, graph::SparseRows& out,
                           std::span<const std::span<const std::int64_t>> upcoming = {}) const;
  // Whether batches of this source's rows can be gathered sparse (gather_sparse()).
  bool gathers_sparse() const {
    return fetcher_->local().is_sparse() && (buffer_ == nullptr || buffer_->sparse_rows());
  }

 private:
  // Each id's row: its cache slot (>= 0), an own row or a remote one.
  std::vector<std::int64_t> row_slots(std::span<const std::int64_t> ids) const;
  // gather() without a hot tier: every row of `ids` into out (Out: float or format::Half).
  template <class Out>
  FetchStats gather_rows(std::span<const std::int64_t> ids, Out* out,
                         std::span<const std::span<const std::int64_t>> upcoming) const;
  // Fetches the rows at `positions` plus the buffer's replacement rows in one exchange.
  FetchStats fetch_with_replacements(std::span<const std::int64_t> ids, std::span<const std::int64_t> positions,
                                     float* out) const;
  const RemoteFetcher* fetcher_;
  const StaticCache* cache_;
  PrefetchBuffer* buffer_;
  const HotTier* hot_tier_;
  bool own_rows_mapped_;
};

}  // namespace loom::feature
