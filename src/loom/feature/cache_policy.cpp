#include "loom/feature/cache_policy.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "loom/core/error.hpp"

namespace loom::feature {

std::vector<double> cache_scores(CachePolicy policy, const CacheContext& context) {
  LOOM_CHECK(context.graph != nullptr, "cache policy '{}' needs a graph", core::enum_name(kCachePolicyNames, policy));
  switch (policy) {
    case CachePolicy::kNone: return std::vector<double>(context.graph->num_rows(), 0.0);
    case CachePolicy::kVip: return policies::vip(context);
    case CachePolicy::kSimulation: return policies::simulation(context);
    case CachePolicy::kDegree: return policies::degree(context);
    case CachePolicy::kHalo: return policies::halo(context);
    case CachePolicy::kRandom: return policies::random(context);
    case CachePolicy::kOracle: return policies::oracle(context);
  }
  throw Error("cache_scores: unknown policy");
}

std::vector<std::int64_t> select_cache(std::span<const double> scores, const partition::PartitionBook& book, int rank,
                                       std::int64_t capacity) {
  const partition::IdRange mine = book.range(rank);
  std::vector<std::int64_t> candidates;
  for (std::int64_t v = 0; v < static_cast<std::int64_t>(scores.size()); ++v)
    if (!mine.contains(v) && scores[v] > 0) candidates.push_back(v);
  const auto hotter = [&](std::int64_t a, std::int64_t b) {
    return scores[a] > scores[b] || (scores[a] == scores[b] && a < b);
  };
  const auto keep = std::min<std::int64_t>(std::max<std::int64_t>(capacity, 0), candidates.size());
  std::partial_sort(candidates.begin(), candidates.begin() + keep, candidates.end(), hotter);
  candidates.resize(keep);
  return candidates;
}

std::int64_t cache_capacity(double alpha, const partition::PartitionBook& book, int rank) {
  LOOM_CHECK_ARG(alpha >= 0 && std::isfinite(alpha), "--alpha", "must be >= 0, got {}", alpha);
  const double rows = std::floor(alpha * static_cast<double>(book.num_nodes()) / book.num_parts());
  const std::int64_t remote = book.num_nodes() - book.range(rank).size();
  return std::min<std::int64_t>(remote, static_cast<std::int64_t>(std::min(rows, 9.0e18)));
}

}  // namespace loom::feature
