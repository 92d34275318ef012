// FeatureSource: what trainers read features through. gather(global ids) splits the ids into
// this rank's own rows, rows held by its static cache and rows owned elsewhere; only the last
// travel (one batched request/response through the RemoteFetcher). Reports how many rows each
// tier served. gather() is COLLECTIVE, like RemoteFetcher::fetch().
#pragma once

#include <cstdint>
#include <span>

#include "loom/feature/remote_fetcher.hpp"
#include "loom/feature/static_cache.hpp"

namespace loom::feature {

class FeatureSource {
 public:
  // `cache` may be null (no cache); both must outlive the source.
  explicit FeatureSource(const RemoteFetcher& fetcher, const StaticCache* cache = nullptr)
      : fetcher_(&fetcher), cache_(cache) {}

  std::int64_t dim() const { return fetcher_->dim(); }
  const RemoteFetcher& fetcher() const { return *fetcher_; }

  // Collective. out[i*dim ..] = row of ids[i].
  FetchStats gather(std::span<const std::int64_t> ids, float* out) const;

 private:
  const RemoteFetcher* fetcher_;
  const StaticCache* cache_;
};

}  // namespace loom::feature
