#include "loom/embed/sampling.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "loom/core/error.hpp"

namespace loom::embed {

namespace {
constexpr double kTwo32 = 4294967296.0;
std::uint64_t to_threshold(double p) {
  if (p >= 1.0) return std::uint64_t{1} << 32;
  if (p <= 0.0) return 0;
  return static_cast<std::uint64_t>(p * kTwo32);
}
}  // namespace

Subsampler::Subsampler(std::span<const std::int64_t> counts, double sample) {
  const double total = static_cast<double>(std::accumulate(counts.begin(), counts.end(), std::int64_t{0}));
  threshold_.resize(counts.size());
  for (std::size_t i = 0; i < counts.size(); ++i) {
    double p = 1.0;
    if (sample > 0 && counts[i] > 0) {
      const double st = sample * total;
      const double c = static_cast<double>(counts[i]);
      p = (std::sqrt(c / st) + 1.0) * st / c;
    }
    threshold_[i] = to_threshold(p);
  }
}

double Subsampler::keep_probability(std::int32_t id) const {
  return static_cast<double>(threshold_[static_cast<std::size_t>(id)]) / kTwo32;
}

NegativeSampler::NegativeSampler(std::span<const std::int64_t> counts, double power) {
  LOOM_CHECK(!counts.empty(), "negative sampler: empty vocabulary");
  const std::size_t n = counts.size();
  size_ = n;
  probability_.resize(n);
  double sum = 0;
  for (std::size_t i = 0; i < n; ++i)
    sum += probability_[i] = std::pow(static_cast<double>(std::max<std::int64_t>(counts[i], 0)), power);
  LOOM_CHECK(sum > 0, "negative sampler: all counts are zero");
  for (auto& p : probability_) p /= sum;
  // Vose's alias method.
  std::vector<double> scaled(n);
  std::vector<std::int32_t> small, large;
  for (std::size_t i = 0; i < n; ++i) {
    scaled[i] = probability_[i] * static_cast<double>(n);
    (scaled[i] < 1.0 ? small : large).push_back(static_cast<std::int32_t>(i));
  }
  accept_.assign(n, std::uint64_t{1} << 32);
  alias_.resize(n);
  for (std::size_t i = 0; i < n; ++i) alias_[i] = static_cast<std::int32_t>(i);
  while (!small.empty() && !large.empty()) {
    const auto s = small.back();
    small.pop_back();
    const auto l = large.back();
    accept_[static_cast<std::size_t>(s)] = to_threshold(scaled[static_cast<std::size_t>(s)]);
    alias_[static_cast<std::size_t>(s)] = l;
    scaled[static_cast<std::size_t>(l)] -= 1.0 - scaled[static_cast<std::size_t>(s)];
    if (scaled[static_cast<std::size_t>(l)] < 1.0) {
      large.pop_back();
      small.push_back(l);
    }
  }
  // Leftovers are 1 up to rounding: always accept.
}

}  // namespace loom::embed
