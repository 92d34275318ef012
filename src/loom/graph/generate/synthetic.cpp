#include "loom/graph/generate/synthetic.hpp"

#include <cmath>

#include "loom/core/parallel.hpp"

namespace loom::graph::generate {

std::vector<float> gaussian_features(std::int64_t n, std::int64_t dim, std::span<const std::int64_t> label,
                                     std::span<const float> centroids, double noise, const core::Rng& rng) {
  std::vector<float> feat(static_cast<std::size_t>(n * dim));
  core::parallel_for_blocks(n, kNodeBlock, [&](std::int64_t begin, std::int64_t end, std::int64_t block) {
    core::Rng r = rng.split(block);
    float* out = feat.data() + begin * dim;
    const std::int64_t count = (end - begin) * dim;
    // Box-Muller, both outputs of each pair used.
    for (std::int64_t i = 0; i < count; i += 2) {
      double u1 = r.uniform();
      while (u1 <= 0.0) u1 = r.uniform();
      const double radius = noise * std::sqrt(-2.0 * std::log(u1));
      const double angle = 6.283185307179586 * r.uniform();
      out[i] = static_cast<float>(radius * std::cos(angle));
      if (i + 1 < count) out[i + 1] = static_cast<float>(radius * std::sin(angle));
    }
    if (centroids.empty()) return;
    for (std::int64_t v = begin; v < end; ++v) {
      const float* centre = centroids.data() + label[v] * dim;
      float* row = feat.data() + v * dim;
      for (std::int64_t j = 0; j < dim; ++j) row[j] += centre[j];
    }
  });
  return feat;
}

void set_symmetric_graph(EdgeList& edges, GraphData& data) {
  const auto generated = static_cast<std::int64_t>(edges.src.size());
  BuiltCsr csr = build_csr(edges, CsrBuildOptions{});
  data.indptr = std::move(csr.indptr);
  data.indices = std::move(csr.indices);
  data.directed = false;
  data.provenance["generated_edges"] = generated;
  data.provenance["self_loops_removed"] = csr.self_loops_removed;
  data.provenance["duplicates_removed"] = csr.duplicates_removed;
}

}  // namespace loom::graph::generate
