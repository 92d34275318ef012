#include "loom/feature/feature_source.hpp"

#include "loom/core/parallel.hpp"
#include "loom/core/timer.hpp"

namespace loom::feature {

FetchStats FeatureSource::gather(std::span<const std::int64_t> ids, float* out) const {
  if (cache_ == nullptr || cache_->empty()) return fetcher_->fetch(ids, out);
  core::Timer timer;
  const auto n = static_cast<std::int64_t>(ids.size());
  const partition::IdRange mine = fetcher_->book().range(fetcher_->rank());
  // slot[i] >= 0: cache row; -1: own row; -2: remote.
  std::vector<std::int64_t> slot(n);
  core::parallel_for(n, [&](std::int64_t i) {
    if (mine.contains(ids[i])) {
      slot[i] = -1;
    } else {
      const std::int64_t row = cache_->find(ids[i]);
      slot[i] = row >= 0 ? row : -2;
    }
  }, 4096);
  std::vector<std::int64_t> remote_positions;
  for (std::int64_t i = 0; i < n; ++i)
    if (slot[i] == -2) remote_positions.push_back(i);
  const std::int64_t dim = fetcher_->dim();
  core::parallel_for(n, [&](std::int64_t i) {
    if (slot[i] >= 0)
      cache_->rows().row(slot[i], out + i * dim);
    else if (slot[i] == -1)
      fetcher_->local().row(ids[i] - mine.begin, out + i * dim);
  }, 256);
  FetchStats stats = fetcher_->fetch_remote(ids, remote_positions, out);
  for (std::int64_t i = 0; i < n; ++i) {
    stats.cached_rows += slot[i] >= 0;
    stats.local_rows += slot[i] == -1;
  }
  stats.seconds = timer.seconds();
  return stats;
}

}  // namespace loom::feature
