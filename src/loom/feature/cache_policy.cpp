#include "loom/feature/cache_policy.hpp"

#include <algorithm>
#include <cmath>
#include <functional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "loom/core/error.hpp"

namespace loom::feature {

namespace {

using Scorer = std::function<std::vector<double>(const CacheContext&)>;

// Policies in the order they are listed to users.
const std::vector<std::pair<std::string, Scorer>>& registry() {
  static const std::vector<std::pair<std::string, Scorer>> policies = {
      {"none", [](const CacheContext& c) { return std::vector<double>(c.graph->num_rows(), 0.0); }},
      {"vip", policies::vip},
      {"simulation", policies::simulation},
      {"degree", policies::degree},
      {"halo", policies::halo},
      {"random", policies::random},
      {"oracle", policies::oracle},
  };
  return policies;
}

const Scorer* find_policy(const std::string& name) {
  for (const auto& [policy, scorer] : registry())
    if (policy == name) return &scorer;
  return nullptr;
}

}  // namespace

const std::vector<std::string>& cache_policy_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& entry : registry()) out.push_back(entry.first);
    return out;
  }();
  return names;
}

void check_cache_policy(const std::string& name, const std::string& argument) {
  if (find_policy(name) == nullptr)
    throw Error::in_argument(
        argument, fmt::format("unknown cache policy '{}' (one of {})", name, fmt::join(cache_policy_names(), ", ")));
}

std::vector<double> cache_scores(const std::string& policy, const CacheContext& context) {
  check_cache_policy(policy);
  LOOM_CHECK(context.graph != nullptr, "cache policy '{}' needs a graph", policy);
  return (*find_policy(policy))(context);
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
