#include "loom/graph/build_csr.hpp"

#include <algorithm>
#include <numeric>
#include <span>

#include "loom/core/error.hpp"
#include "loom/core/parallel.hpp"

namespace loom::graph {

namespace {

// Row offsets: every kept edge adds one entry at src, and one at dst when symmetric (not for loops).
void count_rows(const EdgeList& edges, const CsrBuildOptions& options, BuiltCsr& out) {
  const std::int64_t n = edges.num_nodes;
  const bool drop_loops = options.self_loops == SelfLoopPolicy::kRemove;
  std::vector<std::int64_t> degree(n + 1, 0);
  for (std::size_t e = 0; e < edges.src.size(); ++e) {
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
}

// The entries in input order (serial: memory-bound, and it fixes a deterministic order); the edge
// list's memory is released.
void scatter_edges(EdgeList& edges, const CsrBuildOptions& options, BuiltCsr& out) {
  const bool weighted = !edges.weight.empty();
  const bool drop_loops = options.self_loops == SelfLoopPolicy::kRemove;
  out.indices.resize(out.indptr.back());
  if (weighted) out.weight.resize(out.indptr.back());
  std::vector<std::int64_t> cursor(out.indptr.begin(), out.indptr.end() - 1);
  auto place = [&](std::int64_t u, std::int64_t v, float w) {
    const auto pos = cursor[u]++;
    out.indices[pos] = v;
    if (weighted) out.weight[pos] = w;
  };
  for (std::size_t e = 0; e < edges.src.size(); ++e) {
    const auto u = edges.src[e], v = edges.dst[e];
    const float w = weighted ? edges.weight[e] : 0.0f;
    if (u == v) {
      if (!drop_loops) place(u, v, w);
      continue;
    }
    place(u, v, w);
    if (options.symmetric) place(v, u, w);
  }
  edges.src = {};
  edges.dst = {};
  edges.weight = {};
}

// Sorts each row (stable, so the first weight of a duplicate survives) and, unless duplicates are
// kept, moves its distinct entries to its front. Returns the entries each row keeps.
std::vector<std::int64_t> sort_rows(const CsrBuildOptions& options, BuiltCsr& out) {
  const std::int64_t n = out.num_nodes;
  const bool weighted = !out.weight.empty();
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
  return kept;
}

// Moves each row's `kept` entries next to the previous row's (where anything was removed).
void compact_rows(std::span<const std::int64_t> kept, BuiltCsr& out) {
  const std::int64_t n = out.num_nodes, total = out.indptr[n];
  const bool weighted = !out.weight.empty();
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
}

}  // namespace

BuiltCsr build_csr(EdgeList& edges, const CsrBuildOptions& options) {
  const auto m = static_cast<std::int64_t>(edges.src.size());
  LOOM_CHECK(edges.dst.size() == edges.src.size(), "build_csr: {} sources but {} destinations", m, edges.dst.size());
  LOOM_CHECK(edges.weight.empty() || static_cast<std::int64_t>(edges.weight.size()) == m,
             "build_csr: weight count mismatch");
  BuiltCsr out;
  out.num_nodes = edges.num_nodes;
  count_rows(edges, options, out);
  scatter_edges(edges, options, out);
  const std::vector<std::int64_t> kept = sort_rows(options, out);
  compact_rows(kept, out);
  return out;
}

}  // namespace loom::graph
