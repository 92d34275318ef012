#include "loom/scores/link_metrics.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

namespace loom::scores {

namespace {

std::vector<float> all_ranks(std::span<const float> mine, const comm::Communicator& world) {
  std::vector<float> all;
  for (const auto& part : world.allgatherv(mine, comm::Channel::control))
    all.insert(all.end(), part.begin(), part.end());
  return all;
}

// Negatives above `score` and those equal to it, in descending `negatives`.
std::pair<std::int64_t, std::int64_t> above_and_tied(const std::vector<float>& negatives, float score) {
  const auto at_least =
      std::upper_bound(negatives.begin(), negatives.end(), score, std::greater<>()) - negatives.begin();
  const auto above = std::lower_bound(negatives.begin(), negatives.end(), score, std::greater<>()) - negatives.begin();
  return {above, at_least - above};
}

}  // namespace

std::string hits_name(int k) { return "hits@" + std::to_string(k); }

LinkMetrics link_metrics(std::span<const float> positive, std::span<const float> negative,
                         std::span<const int> hits_at) {
  LinkMetrics m;
  m.positives = static_cast<std::int64_t>(positive.size());
  m.negatives = static_cast<std::int64_t>(negative.size());
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (positive.empty() || negative.empty()) {
    m.auc = m.mrr = nan;
    for (const int k : hits_at) m.hits[k] = nan;
    return m;
  }
  std::vector<float> descending(negative.begin(), negative.end());
  std::sort(descending.begin(), descending.end(), std::greater<>());
  double wins = 0, reciprocal = 0;
  for (const float p : positive) {
    const auto [above, tied] = above_and_tied(descending, p);
    wins += static_cast<double>(m.negatives - above - tied) + 0.5 * static_cast<double>(tied);
    reciprocal += 1.0 / (1.0 + static_cast<double>(above));
  }
  m.auc = wins / (static_cast<double>(m.positives) * static_cast<double>(m.negatives));
  m.mrr = reciprocal / static_cast<double>(m.positives);
  for (const int k : hits_at) {
    if (static_cast<std::int64_t>(descending.size()) < k) {
      m.hits[k] = 1.0;
      continue;
    }
    const float threshold = descending[static_cast<std::size_t>(k - 1)];
    const auto hits = std::count_if(positive.begin(), positive.end(), [&](float p) { return p > threshold; });
    m.hits[k] = static_cast<double>(hits) / static_cast<double>(m.positives);
  }
  return m;
}

LinkMetrics link_metrics(std::span<const float> positive, std::span<const float> negative, std::span<const int> hits_at,
                         const comm::Communicator& world) {
  const std::vector<float> all_positive = all_ranks(positive, world), all_negative = all_ranks(negative, world);
  return link_metrics(all_positive, all_negative, hits_at);
}

}  // namespace loom::scores
