#include "loom/graph/generate/knn_graph.hpp"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <mutex>

#include "loom/core/error.hpp"
#include "loom/core/parallel.hpp"

namespace loom::graph::generate {

namespace {

// The k best (similarity, id) pairs seen so far for one row, best first, under the total order
// "higher similarity, then smaller id". The result is the top k of everything offered, in any
// order of insertion, so tiles may be processed in any order by any thread.
struct TopK {
  float* sims;
  std::int64_t* ids;
  int k;
  int filled = 0;

  bool beats_last(float s, std::int64_t id) const {
    return filled < k || s > sims[k - 1] || (s == sims[k - 1] && id < ids[k - 1]);
  }
  void insert(float s, std::int64_t id) {
    int pos = filled < k ? filled++ : k - 1;
    while (pos > 0 && (sims[pos - 1] < s || (sims[pos - 1] == s && ids[pos - 1] > id))) {
      sims[pos] = sims[pos - 1];
      ids[pos] = ids[pos - 1];
      --pos;
    }
    sims[pos] = s;
    ids[pos] = id;
  }
  // Lowest similarity that may still enter (everything may while the list is not full).
  float threshold() const { return filled < k ? -std::numeric_limits<float>::infinity() : sims[k - 1]; }
};

// Offers row `row`'s similarities to columns [col0, col0 + count) (the row itself skipped).
void scan_row(const float* sims, std::int64_t row, std::int64_t col0, std::int64_t count, TopK& top) {
  float thr = top.threshold();
  for (std::int64_t j = 0; j < count; ++j) {
    const float s = sims[j];
    if (s >= thr && col0 + j != row && top.beats_last(s, col0 + j)) {
      top.insert(s, col0 + j);
      thr = top.threshold();
    }
  }
}

std::vector<float> normalised_rows(std::span<const float> features, std::int64_t n, std::int64_t dim) {
  std::vector<float> x(static_cast<std::size_t>(n * dim));
  core::parallel_for(
      n,
      [&](std::int64_t i) {
        const float* in = features.data() + i * dim;
        double norm2 = 0;
        for (std::int64_t j = 0; j < dim; ++j) {
          if (!std::isfinite(in[j]))
            throw Error(fmt::format("knn_graph: feature row {} column {} is not finite", i, j));
          norm2 += static_cast<double>(in[j]) * in[j];
        }
        const float scale = norm2 > 0 ? static_cast<float>(1.0 / std::sqrt(norm2)) : 0.0f;
        float* out = x.data() + i * dim;
        for (std::int64_t j = 0; j < dim; ++j) out[j] = in[j] * scale;
      },
      256);
  return x;
}

// Restores OpenBLAS's thread count when the scope ends (also on an exception).
class BlasThreads {
 public:
  explicit BlasThreads(int threads) : saved_(openblas_get_num_threads()) { openblas_set_num_threads(threads); }
  ~BlasThreads() { openblas_set_num_threads(saved_); }
  BlasThreads(const BlasThreads&) = delete;
  BlasThreads& operator=(const BlasThreads&) = delete;

 private:
  int saved_;
};

}  // namespace

KnnResult knn_graph(std::span<const float> features, std::int64_t n, std::int64_t dim, int k,
                    const KnnOptions& options) {
  LOOM_CHECK_ARG(k >= 1, "--k", "must be at least 1, got {}", k);
  LOOM_CHECK_ARG(k < n, "--k", "must be smaller than the number of nodes ({}), got {}", n, k);
  LOOM_CHECK(dim >= 1 && dim <= std::numeric_limits<int>::max(), "knn_graph: feature dimension {} out of range", dim);
  LOOM_CHECK(static_cast<std::int64_t>(features.size()) == n * dim, "knn_graph: {} feature values for {} rows of {}",
             features.size(), n, dim);
  const std::int64_t tile = options.tile;
  LOOM_CHECK(tile >= 1 && tile <= 65536, "knn_graph: tile size {} out of range", tile);

  const std::vector<float> x = normalised_rows(features, n, dim);
  KnnResult out;
  out.num_nodes = n;
  out.k = k;
  out.neighbors.resize(static_cast<std::size_t>(n * k));
  out.similarity.resize(static_cast<std::size_t>(n * k));
  std::vector<TopK> tops;
  tops.reserve(static_cast<std::size_t>(n));
  for (std::int64_t r = 0; r < n; ++r)
    tops.push_back(TopK{out.similarity.data() + r * k, out.neighbors.data() + r * k, k});

  // Tiles (I, J) with I <= J: each is one sgemm and serves the rows of block I directly and the
  // rows of block J transposed. A lock per row block guards its rows' lists.
  const std::int64_t blocks = (n + tile - 1) / tile;
  std::vector<std::mutex> locks(static_cast<std::size_t>(blocks));

  BlasThreads single(1);  // parallel over tiles; each sgemm runs in its own thread
  core::parallel_for(
      blocks * blocks,
      [&](std::int64_t t) {
        const std::int64_t bi = t / blocks, bj = t % blocks;
        if (bj < bi) return;
        const std::int64_t r0 = bi * tile, rows = std::min(n, r0 + tile) - r0;
        const std::int64_t c0 = bj * tile, cols = std::min(n, c0 + tile) - c0;
        auto sims = std::make_unique_for_overwrite<float[]>(static_cast<std::size_t>(rows * cols));
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<int>(rows), static_cast<int>(cols),
                    static_cast<int>(dim), 1.0f, x.data() + r0 * dim, static_cast<int>(dim), x.data() + c0 * dim,
                    static_cast<int>(dim), 0.0f, sims.get(), static_cast<int>(cols));
        {
          std::lock_guard<std::mutex> lock(locks[bi]);
          for (std::int64_t r = 0; r < rows; ++r) scan_row(sims.get() + r * cols, r0 + r, c0, cols, tops[r0 + r]);
        }
        if (bi == bj) return;
        auto transposed = std::make_unique_for_overwrite<float[]>(static_cast<std::size_t>(rows * cols));
        for (std::int64_t r = 0; r < rows; ++r)
          for (std::int64_t c = 0; c < cols; ++c) transposed[c * rows + r] = sims[r * cols + c];
        std::lock_guard<std::mutex> lock(locks[bj]);
        for (std::int64_t c = 0; c < cols; ++c) scan_row(transposed.get() + c * rows, c0 + c, r0, rows, tops[c0 + c]);
      },
      1);
  return out;
}

EdgeList knn_edge_list(const KnnResult& knn) {
  EdgeList edges;
  edges.num_nodes = knn.num_nodes;
  const auto m = static_cast<std::size_t>(knn.num_nodes * knn.k);
  edges.src.resize(m);
  edges.dst.resize(m);
  for (std::int64_t i = 0; i < knn.num_nodes; ++i)
    for (int j = 0; j < knn.k; ++j) {
      edges.src[i * knn.k + j] = i;
      edges.dst[i * knn.k + j] = knn.neighbors[i * knn.k + j];
    }
  return edges;
}

}  // namespace loom::graph::generate
