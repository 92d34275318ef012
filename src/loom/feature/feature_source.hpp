// FeatureSource: what trainers read features through. gather(global ids) serves each id from the
// first tier that holds it: this rank's own rows, its static cache, its prefetch buffer; the
// rest travel in one batched request/response through the RemoteFetcher, together with the
// rows a pending prefetch-buffer eviction brings in. Reports how many rows each tier served.
// gather() is COLLECTIVE, like RemoteFetcher::fetch(), and updates the prefetch buffer (hits,
// misses, decay clock), so one thread at a time may call it.
#pragma once

#include <cstdint>
#include <span>

#include "loom/feature/prefetch_buffer.hpp"
#include "loom/feature/remote_fetcher.hpp"
#include "loom/feature/static_cache.hpp"

namespace loom::feature {

class FeatureSource {
 public:
  // `cache` and `buffer` may be null; what they point to must outlive the source.
  explicit FeatureSource(const RemoteFetcher& fetcher, const StaticCache* cache = nullptr,
                         PrefetchBuffer* buffer = nullptr)
      : fetcher_(&fetcher), cache_(cache), buffer_(buffer) {}

  std::int64_t dim() const { return fetcher_->dim(); }
  const RemoteFetcher& fetcher() const { return *fetcher_; }
  PrefetchBuffer* buffer() const { return buffer_; }

  // Collective. out[i*dim ..] = row of ids[i].
  FetchStats gather(std::span<const std::int64_t> ids, float* out) const;

 private:
  // Fetches the rows at `positions` plus the buffer's replacement rows in one exchange.
  FetchStats fetch_with_replacements(std::span<const std::int64_t> ids, std::span<const std::int64_t> positions,
                                     float* out) const;
  const RemoteFetcher* fetcher_;
  const StaticCache* cache_;
  PrefetchBuffer* buffer_;
};

}  // namespace loom::feature
