#include "loom/graph/build_csr.hpp"

#include <algorithm>
#include <numeric>

#include "loom/core/error.hpp"
#include "loom/core/parallel.hpp"

namespace loom::graph {

BuiltCsr build_csr(EdgeList& edges, const CsrBuildOptions& options) {
  const std::int64_t n = edges.num_nodes;
  const auto m = static_cast<std::int64_t>(edges.src.size());
  LOOM_CHECK(edges.dst.size() == edges.src.size(), "build_csr: {} sources but {} destinations", m, edges.dst.size());
  const bool weighted = !edges.weight.empty();
  LOOM_CHECK(!weighted || static_cast<std::int64_t>(edges.weight.size()) == m, "build_csr: weight count mismatch");
  const bool drop_loops = options.self_loops == SelfLoopPolicy::kRemove;

  BuiltCsr out;
  out.num_nodes = n;
  // Count: every kept edge adds one entry at src, and one at dst when symmetric (not for loops).
  std::vector<std::int64_t> degree(n + 1, 0);
  for (std::int64_t e = 0; e < m; ++e) {
    const auto u = edges.src[e], v = edges.dst[e];
    if (u == v) {
      if (drop_loops)
        ++out.self_loops_removed;
      else
        ++degree[u];
      continue;
    }
    ++degree[u];
    if (options.symmetric) ++degree[v];
  }
  out.indptr.assign(n + 1, 0);
  std::partial_sum(degree.begin(), degree.end() - 1, out.indptr.begin() + 1);
  const std::int64_t total = out.indptr[n];

  // Scatter in input order (serial: memory-bound, and it fixes a deterministic order).
  out.indices.resize(total);
  if (weighted) out.weight.resize(total);
  std::vector<std::int64_t> cursor(out.indptr.begin(), out.indptr.end() - 1);
  auto place = [&](std::int64_t u, std::int64_t v, float w) {
    const auto pos = cursor[u]++;
    out.indices[pos] = v;
    if (weighted) out.weight[pos] = w;
  };
  for (std::int64_t e = 0; e < m; ++e) {
    const auto u = edges.src[e], v = edges.dst[e];
    const float w = weighted ? edges.weight[e] : 0.0f;
    if (u == v) {
      if (!drop_loops) place(u, v, w);
      continue;
    }
    place(u, v, w);
    if (options.symmetric) place(v, u, w);
  }
  edges.src.clear();
  edges.src.shrink_to_fit();
  edges.dst.clear();
  edges.dst.shrink_to_fit();
  edges.weight.clear();
  edges.weight.shrink_to_fit();

  // Sort each row (stable, so the first weight of a duplicate survives), then deduplicate.
  std::vector<std::int64_t> kept(n, 0);
  core::parallel_for(
      n,
      [&](std::int64_t u) {
        const auto begin = out.indptr[u], end = out.indptr[u + 1];
        auto* idx = out.indices.data();
        if (weighted) {
          std::vector<std::pair<std::int64_t, float>> row(end - begin);
          for (auto i = begin; i < end; ++i) row[i - begin] = {idx[i], out.weight[i]};
          std::stable_sort(row.begin(), row.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
          for (auto i = begin; i < end; ++i) std::tie(idx[i], out.weight[i]) = row[i - begin];
        } else {
          std::sort(idx + begin, idx + end);
        }
        if (options.duplicates == DuplicatePolicy::kKeep) {
          kept[u] = end - begin;
          return;
        }
        std::int64_t w = begin;
        for (auto i = begin; i < end; ++i) {
          if (i > begin && idx[i] == idx[w - 1]) continue;
          idx[w] = idx[i];
          if (weighted) out.weight[w] = out.weight[i];
          ++w;
        }
        kept[u] = w - begin;
      },
      256);

  // Compact rows if anything was removed.
  std::int64_t write = 0;
  for (std::int64_t u = 0; u < n; ++u) {
    const auto begin = out.indptr[u];
    if (write != begin) {
      std::copy(out.indices.begin() + begin, out.indices.begin() + begin + kept[u], out.indices.begin() + write);
      if (weighted)
        std::copy(out.weight.begin() + begin, out.weight.begin() + begin + kept[u], out.weight.begin() + write);
    }
    out.indptr[u] = write;
    write += kept[u];
  }
  out.indptr[n] = write;
  out.duplicates_removed = total - write;
  out.indices.resize(write);
  out.indices.shrink_to_fit();
  if (weighted) {
    out.weight.resize(write);
    out.weight.shrink_to_fit();
  }
  return out;
}

}  // namespace loom::graph
