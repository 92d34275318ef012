#include "loom/embed/combiner.hpp"

#include "loom/core/error.hpp"

namespace loom::embed {

namespace {

// a <- combine(a, b) under gc: a + b - ((a.b)/|a|^2) a.
void gc_into(float* a, const float* b, std::int64_t dim) {
  double dot = 0, norm = 0;
  for (std::int64_t d = 0; d < dim; ++d) {
    dot += static_cast<double>(a[d]) * b[d];
    norm += static_cast<double>(a[d]) * a[d];
  }
  const auto scale = static_cast<float>(norm > 0 ? dot / norm : 0.0);
  for (std::int64_t d = 0; d < dim; ++d) a[d] = a[d] + b[d] - scale * a[d];
}

}  // namespace

void combine_updates(Combiner combiner, std::span<const float* const> updates, std::int64_t dim, float* out) {
  LOOM_CHECK(!updates.empty(), "combine_updates: no updates");
  // Tree over rank order: level by level, pairs (0,1) (2,3) ..., an odd last one carried up.
  std::vector<std::vector<float>> level(updates.size());
  for (std::size_t i = 0; i < updates.size(); ++i) level[i].assign(updates[i], updates[i] + dim);
  while (level.size() > 1) {
    std::vector<std::vector<float>> next;
    for (std::size_t i = 0; i + 1 < level.size(); i += 2) {
      auto& a = level[i];
      const auto& b = level[i + 1];
      if (combiner == Combiner::kGc)
        gc_into(a.data(), b.data(), dim);
      else
        for (std::int64_t d = 0; d < dim; ++d) a[d] += b[d];
      next.push_back(std::move(a));
    }
    if (level.size() % 2 == 1) next.push_back(std::move(level.back()));
    level = std::move(next);
  }
  const float scale = combiner == Combiner::kAverage ? 1.0f / static_cast<float>(updates.size()) : 1.0f;
  for (std::int64_t d = 0; d < dim; ++d) out[d] = level[0][d] * scale;
}

}  // namespace loom::embed
