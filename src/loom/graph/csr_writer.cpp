#include "loom/graph/csr_writer.hpp"

#include <algorithm>
#include <atomic>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "loom/core/memory.hpp"
#include "loom/format/npy.hpp"
#include "loom/core/parallel.hpp"
#include "loom/graph/csr.hpp"

namespace loom::graph {

std::int64_t default_build_memory() {
  const std::int64_t available = core::available_bytes();
  if (available <= 0) return std::int64_t{1} << 30;
  return std::clamp(available / 10, std::int64_t{256} << 20, std::int64_t{8} << 30);
}

namespace {

// Adds one to counts[v] from any thread.
inline void count_one(std::vector<std::int64_t>& counts, std::int64_t v) {
  std::atomic_ref<std::int64_t>(counts[static_cast<std::size_t>(v)]).fetch_add(1, std::memory_order_relaxed);
}

// Entries each row receives from the stream (before de-duplication), as build_csr counts them.
std::vector<std::int64_t> count_entries(const EdgeStream& edges, const CsrBuildOptions& o, CsrWriteReport& report,
                                        core::ProgressBar& bar) {
  const std::int64_t n = edges.num_nodes();
  std::vector<std::int64_t> counts(static_cast<std::size_t>(n), 0);
  std::atomic<std::int64_t> loops{0}, input{0};
  edges.replay([&](const EdgeChunk& c) {
    const auto m = static_cast<std::int64_t>(c.src.size());
    for (std::int64_t e = 0; e < m; ++e) {
      LOOM_CHECK(c.src[e] >= 0 && c.src[e] < n && c.dst[e] >= 0 && c.dst[e] < n,
                 "edge stream: edge {} -> {} outside [0, {})", c.src[e], c.dst[e], n);
    }
    core::parallel_for(
        m,
        [&](std::int64_t e) {
          const auto u = c.src[e], v = c.dst[e];
          if (u == v) {
            if (o.self_loops == SelfLoopPolicy::kRemove)
              loops.fetch_add(1, std::memory_order_relaxed);
            else
              count_one(counts, u);
            return;
          }
          count_one(counts, u);
          if (o.symmetric) count_one(counts, v);
        },
        1 << 14);
    input += m;
    bar.update(m);
  });
  report.self_loops_removed = loops.load();
  report.input_edges = input.load();
  return counts;
}

// Rows [begin, end) whose entries fit `budget` (at least one row), from `begin` on.
std::int64_t range_end(const std::vector<std::int64_t>& offset, std::int64_t begin, std::int64_t budget) {
  const auto n = static_cast<std::int64_t>(offset.size()) - 1;
  std::int64_t end = begin + 1;
  while (end < n && offset[end + 1] - offset[begin] <= budget) ++end;
  return end;
}

// One range of rows: its entries scattered in stream order, then sorted and de-duplicated; ids as
// IdT (int32 when the node ids fit, the width indices.npy stores).
template <class IdT>
struct RowRange {
  std::int64_t begin = 0, end = 0;
  std::vector<IdT> indices;
  std::vector<std::int64_t> kept;
  std::vector<float> weight;
};

template <class IdT>
void scatter(const EdgeStream& edges, const CsrBuildOptions& o, const std::vector<std::int64_t>& offset,
             RowRange<IdT>& r) {
  const std::int64_t base = offset[r.begin];
  const bool weighted = edges.weighted();
  r.indices.assign(static_cast<std::size_t>(offset[r.end] - base), 0);
  if (weighted) r.weight.assign(r.indices.size(), 0.0f);
  std::vector<std::int64_t> cursor(offset.begin() + r.begin, offset.begin() + r.end);
  const auto place = [&](std::int64_t u, std::int64_t v, float w) {
    if (u < r.begin || u >= r.end) return;
    const std::int64_t pos = cursor[u - r.begin]++ - base;
    r.indices[pos] = static_cast<IdT>(v);
    if (weighted) r.weight[pos] = w;
  };
  const bool drop_loops = o.self_loops == SelfLoopPolicy::kRemove;
  edges.replay([&](const EdgeChunk& c) {
    const auto m = static_cast<std::int64_t>(c.src.size());
    for (std::int64_t e = 0; e < m; ++e) {
      const auto u = c.src[e], v = c.dst[e];
      const float w = weighted ? c.weight[e] : 0.0f;
      if (u == v) {
        if (!drop_loops) place(u, v, w);
        continue;
      }
      place(u, v, w);
      if (o.symmetric) place(v, u, w);
    }
  });
}

// Sorts each row (stably, so the first weight of a duplicate survives) and removes duplicates,
// as build_csr() does; kept[i] = entries row begin + i keeps, packed to the front of its slot.
template <class IdT>
void sort_rows(const CsrBuildOptions& o, const std::vector<std::int64_t>& offset, bool weighted, RowRange<IdT>& r) {
  const std::int64_t base = offset[r.begin];
  r.kept.assign(static_cast<std::size_t>(r.end - r.begin), 0);
  core::parallel_for(
      r.end - r.begin,
      [&](std::int64_t i) {
        const std::int64_t begin = offset[r.begin + i] - base, end = offset[r.begin + i + 1] - base;
        auto* idx = r.indices.data();
        if (weighted) {
          std::vector<std::pair<IdT, float>> row(static_cast<std::size_t>(end - begin));
          for (auto k = begin; k < end; ++k) row[k - begin] = {idx[k], r.weight[k]};
          std::stable_sort(row.begin(), row.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
          for (auto k = begin; k < end; ++k) std::tie(idx[k], r.weight[k]) = row[k - begin];
        } else {
          std::sort(idx + begin, idx + end);
        }
        if (o.duplicates == DuplicatePolicy::kKeep) {
          r.kept[i] = end - begin;
          return;
        }
        std::int64_t w = begin;
        for (auto k = begin; k < end; ++k) {
          if (k > begin && idx[k] == idx[w - 1]) continue;
          idx[w] = idx[k];
          if (weighted) r.weight[w] = r.weight[k];
          ++w;
        }
        r.kept[i] = w - begin;
      },
      256);
  // Pack the kept entries of the rows to the front, in row order.
  std::int64_t write = 0;
  for (std::int64_t i = 0; i < r.end - r.begin; ++i) {
    const std::int64_t from = offset[r.begin + i] - base;
    if (write != from) {
      std::copy_n(r.indices.begin() + from, r.kept[i], r.indices.begin() + write);
      if (weighted) std::copy_n(r.weight.begin() + from, r.kept[i], r.weight.begin() + write);
    }
    write += r.kept[i];
  }
  r.indices.resize(static_cast<std::size_t>(write));
  if (weighted) r.weight.resize(static_cast<std::size_t>(write));
}

}  // namespace

void EdgeListStream::replay(const std::function<void(const EdgeChunk&)>& visit) const {
  const std::int64_t m = num_edges();
  const std::span<const std::int64_t> src(edges_->src), dst(edges_->dst);
  const std::span<const float> weight(edges_->weight);
  for (std::int64_t begin = 0; begin < m; begin += chunk_) {
    const auto count = static_cast<std::size_t>(std::min(chunk_, m - begin));
    const auto at = static_cast<std::size_t>(begin);
    visit({src.subspan(at, count), dst.subspan(at, count), weight.empty() ? weight : weight.subspan(at, count)});
  }
}

namespace {

// Places the rows range by range (write_csr_files after its counting pass), ids as IdT.
template <class IdT>
void place_rows(const EdgeStream& edges, const CsrBuildOptions& options, const std::vector<std::int64_t>& offset,
                std::int64_t memory_bytes, format::NpyWriter& indices, std::optional<format::NpyWriter>& weights,
                std::vector<std::int64_t>& indptr, CsrWriteReport& report) {
  const std::int64_t n = edges.num_nodes();
  const bool weighted = edges.weighted();
  const auto entry_bytes = static_cast<std::int64_t>(sizeof(IdT)) + (weighted ? 4 : 0);
  const std::int64_t budget = std::max<std::int64_t>(1, memory_bytes / entry_bytes);
  core::ProgressBar bar("csr: place rows", n, "rows");
  for (std::int64_t begin = 0; begin < n;) {
    RowRange<IdT> r;
    r.begin = begin;
    r.end = range_end(offset, begin, budget);
    scatter(edges, options, offset, r);
    ++report.passes;
    sort_rows(options, offset, weighted, r);
    indices.append(r.indices.data(), static_cast<std::int64_t>(r.indices.size()));
    if (weighted) weights->append(r.weight.data(), static_cast<std::int64_t>(r.weight.size()));
    for (std::int64_t i = 0; i < r.end - r.begin; ++i) indptr[r.begin + i + 1] = indptr[r.begin + i] + r.kept[i];
    bar.update(r.end - r.begin, fmt::format("pass {}", report.passes));
    begin = r.end;
  }
  bar.finish();
}

}  // namespace

CsrWriteReport write_csr_files(const EdgeStream& edges, const CsrBuildOptions& options, const std::string& dir,
                               std::int64_t memory_bytes) {
  CsrWriteReport report;
  const std::int64_t n = edges.num_nodes();
  report.num_nodes = n;
  core::ProgressBar count_bar("csr: count rows", edges.num_edges(), "edges");
  std::vector<std::int64_t> offset = count_entries(edges, options, report, count_bar);
  count_bar.finish();
  // counts -> offsets (n + 1) in place
  offset.push_back(0);
  std::int64_t running = 0;
  for (auto& c : offset) {
    const std::int64_t count = c;
    c = running;
    running += count;
  }
  ++report.passes;

  const bool narrow = fits_int32(n);
  format::NpyWriter indices(dir + "/indices.npy", narrow ? format::DType::kInt32 : format::DType::kInt64);
  std::optional<format::NpyWriter> weights;
  if (edges.weighted()) weights.emplace(dir + "/weight.npy", format::DType::kFloat32);
  std::vector<std::int64_t> indptr(static_cast<std::size_t>(n) + 1, 0);
  if (narrow)
    place_rows<std::int32_t>(edges, options, offset, memory_bytes, indices, weights, indptr, report);
  else
    place_rows<std::int64_t>(edges, options, offset, memory_bytes, indices, weights, indptr, report);
  report.num_edges = indptr[n];
  report.duplicates_removed = offset[n] - report.num_edges;
  indices.finish();
  if (weights) weights->finish();
  format::write_npy(dir + "/indptr.npy", indptr);
  return report;
}

}  // namespace loom::graph
