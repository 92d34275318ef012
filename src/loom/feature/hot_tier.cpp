#include "loom/feature/hot_tier.hpp"

#include <algorithm>
#include <numeric>

#include "loom/core/error.hpp"

namespace loom::feature {

HotTier HotTier::hottest(std::span<const double> score, std::int64_t capacity) {
  LOOM_CHECK_ARG(capacity >= 0, "capacity", "must be >= 0, got {}", capacity);
  HotTier tier;
  const auto n = static_cast<std::int64_t>(score.size());
  const std::int64_t keep = std::min(capacity, n);
  if (keep == 0) return tier;
  std::vector<std::int64_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) { return score[a] > score[b]; });
  order.resize(keep);
  tier.slot_.assign(n, -1);
  for (std::int64_t s = 0; s < keep; ++s) {
    tier.slot_[order[s]] = s;
    tier.tier_score_ += score[order[s]];
  }
  for (const double value : score) tier.total_score_ += value;
  tier.rows_ = std::move(order);
  return tier;
}

}  // namespace loom::feature
