#include "loom/graph/generate/splits.hpp"

#include <algorithm>
#include <cmath>

#include "loom/core/error.hpp"

namespace loom::graph::generate {

std::map<std::string, std::vector<std::int64_t>> random_splits(
    std::vector<std::int64_t> pool, const std::vector<std::pair<std::string, std::int64_t>>& sizes,
    const std::string& rest_name, core::Rng rng) {
  std::int64_t total = 0;
  for (const auto& [name, size] : sizes) {
    LOOM_CHECK(size >= 0, "random_splits: split '{}' has negative size {}", name, size);
    total += size;
  }
  LOOM_CHECK(total <= static_cast<std::int64_t>(pool.size()), "random_splits: splits need {} ids, only {} available",
             total, pool.size());
  core::shuffle(pool.begin(), pool.end(), rng);
  std::map<std::string, std::vector<std::int64_t>> out;
  auto begin = pool.begin();
  auto take = [&](const std::string& name, std::int64_t size) {
    std::vector<std::int64_t> ids(begin, begin + size);
    begin += size;
    std::sort(ids.begin(), ids.end());
    out[name] = std::move(ids);
  };
  for (const auto& [name, size] : sizes) take(name, size);
  if (begin != pool.end() && !rest_name.empty()) take(rest_name, pool.end() - begin);
  return out;
}

std::vector<std::pair<std::string, std::int64_t>> fraction_sizes(std::int64_t n, double train, double valid) {
  LOOM_CHECK_ARG(train >= 0 && train <= 1, "--train", "must be a fraction in [0, 1], got {}", train);
  LOOM_CHECK_ARG(valid >= 0 && valid <= 1, "--valid", "must be a fraction in [0, 1], got {}", valid);
  LOOM_CHECK_ARG(train + valid <= 1, "--valid", "train + valid fractions must not exceed 1, got {} + {}", train, valid);
  const std::int64_t train_size = std::llround(train * static_cast<double>(n));
  const std::int64_t valid_size = std::min<std::int64_t>(std::llround(valid * static_cast<double>(n)), n - train_size);
  return {{"train", train_size}, {"valid", valid_size}};
}

std::map<std::string, std::vector<std::int64_t>> labelled_random_splits(const GraphData& data, double train,
                                                                        double valid, std::uint64_t seed) {
  const std::int64_t rows = data.num_rows();
  std::vector<std::int64_t> pool;
  for (std::int64_t v = 0; v < rows; ++v) {
    bool labelled = true;
    if (!data.label.empty()) labelled = data.label[static_cast<std::size_t>(v)] >= 0;
    if (!data.multi_label.empty()) {
      const auto* row = data.multi_label.data() + v * data.num_classes;
      labelled = std::any_of(row, row + data.num_classes, [](std::uint8_t x) { return x != 0; });
    }
    if (labelled) pool.push_back(v);
  }
  const auto n = static_cast<std::int64_t>(pool.size());
  return random_splits(std::move(pool), fraction_sizes(n, train, valid), "test", core::Rng(seed));
}

}  // namespace loom::graph::generate
