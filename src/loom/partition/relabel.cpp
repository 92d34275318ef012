#include "loom/partition/relabel.hpp"

#include <algorithm>
#include <numeric>

#include "loom/core/error.hpp"
#include "loom/core/parallel.hpp"

namespace loom::partition {

Relabelling relabel_by_part(std::span<const std::int32_t> parts, int num_parts) {
  const auto n = static_cast<std::int64_t>(parts.size());
  std::vector<std::int64_t> offsets(static_cast<std::size_t>(num_parts) + 1, 0);
  for (std::int64_t v = 0; v < n; ++v) {
    LOOM_CHECK(parts[v] >= 0 && parts[v] < num_parts, "partition: node {} assigned to part {} outside [0, {})", v,
               parts[v], num_parts);
    ++offsets[parts[v] + 1];
  }
  std::partial_sum(offsets.begin(), offsets.end(), offsets.begin());
  Relabelling r;
  r.new_to_source.resize(static_cast<std::size_t>(n));
  r.source_to_new.resize(static_cast<std::size_t>(n));
  std::vector<std::int64_t> next(offsets.begin(), offsets.end() - 1);
  for (std::int64_t v = 0; v < n; ++v) {  // increasing v keeps the relative order within a part
    const std::int64_t id = next[parts[v]]++;
    r.source_to_new[v] = id;
    r.new_to_source[id] = v;
  }
  r.book = PartitionBook(std::move(offsets));
  return r;
}

void relabel_rows(const graph::GraphStore& source, const Relabelling& r, IdRange rows, graph::GraphData& out) {
  const auto& csr = source.csr();
  const auto src_ptr = csr.indptr();
  const std::int64_t count = rows.size();
  out.indptr.assign(static_cast<std::size_t>(count) + 1, 0);
  for (std::int64_t i = 0; i < count; ++i) {
    const std::int64_t v = r.new_to_source[rows.begin + i];
    out.indptr[i + 1] = out.indptr[i] + (src_ptr[v + 1] - src_ptr[v]);
  }
  const bool weighted = source.meta().weighted;
  out.indices.resize(static_cast<std::size_t>(out.indptr[count]));
  out.edge_weight.resize(weighted ? out.indices.size() : 0);
  const float* src_weight = weighted ? source.edge_weight().span<float>().data() : nullptr;
  csr.visit([&](auto view) {
    core::parallel_for(
        count,
        [&](std::int64_t i) {
          const std::int64_t v = r.new_to_source[rows.begin + i];
          const auto neighbors = view.neighbors(v);
          const std::int64_t begin = out.indptr[i];
          const auto degree = static_cast<std::int64_t>(neighbors.size());
          if (!weighted) {
            for (std::int64_t j = 0; j < degree; ++j) out.indices[begin + j] = r.source_to_new[neighbors[j]];
            std::sort(out.indices.begin() + begin, out.indices.begin() + begin + degree);
            return;
          }
          // Sort (new id, weight) pairs by id through a small order array.
          std::vector<std::int64_t> order(static_cast<std::size_t>(degree));
          std::iota(order.begin(), order.end(), std::int64_t{0});
          std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
            return r.source_to_new[neighbors[a]] < r.source_to_new[neighbors[b]];
          });
          const std::int64_t edge0 = src_ptr[v];
          for (std::int64_t j = 0; j < degree; ++j) {
            out.indices[begin + j] = r.source_to_new[neighbors[order[j]]];
            out.edge_weight[begin + j] = src_weight[edge0 + order[j]];
          }
        },
        256);
  });
}

}  // namespace loom::partition
