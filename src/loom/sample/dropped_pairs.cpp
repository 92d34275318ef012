#include "loom/sample/dropped_pairs.hpp"

#include <algorithm>

#include <absl/container/flat_hash_set.h>

namespace loom::sample {

namespace {

std::pair<std::int64_t, std::int64_t> unordered(std::int64_t a, std::int64_t b) {
  return {std::min(a, b), std::max(a, b)};
}

}  // namespace

void drop_pair_edges(SampledBatch& batch, std::span<const std::int64_t> pairs) {
  if (pairs.empty()) return;
  absl::flat_hash_set<std::pair<std::int64_t, std::int64_t>> dropped;
  dropped.reserve(pairs.size() / 2);
  for (std::size_t i = 0; i + 1 < pairs.size(); i += 2) dropped.insert(unordered(pairs[i], pairs[i + 1]));
  const auto& ids = batch.input_nodes;
  batch.num_sampled_edges = 0;
  for (Block& block : batch.blocks) {
    std::int64_t kept = 0;
    std::int64_t begin = 0;
    for (std::int64_t d = 0; d < block.num_dst; ++d) {
      const std::int64_t end = block.indptr[d + 1];
      for (std::int64_t e = begin; e < end; ++e) {
        const std::int32_t s = block.indices[static_cast<std::size_t>(e)];
        if (!dropped.contains(unordered(ids[static_cast<std::size_t>(d)], ids[static_cast<std::size_t>(s)])))
          block.indices[static_cast<std::size_t>(kept++)] = s;
      }
      begin = end;
      block.indptr[d + 1] = kept;
    }
    block.indices.resize(static_cast<std::size_t>(kept));
    batch.num_sampled_edges += kept;
  }
}

}  // namespace loom::sample
