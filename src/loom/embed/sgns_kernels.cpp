#include "loom/embed/sgns_kernels.hpp"

#include <algorithm>
#include <cmath>

#include "loom/core/cpu_clones.hpp"

// The kernels are cloned per instruction set (core/cpu_clones.hpp); helpers are always inlined
// into them, so they run in the kernel's clone.
// Lanes values never cross a non-inlined call, so the ABI note on 64-byte vectors does not apply.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace loom::embed::detail {

namespace {

// word2vec.c's clipped sigmoid table, plus log-sigmoid tables for the reported loss.
constexpr int kTableSize = 1000;
constexpr float kMaxExp = 6.0f;
constexpr float kTableScale = kTableSize / kMaxExp / 2.0f;

struct SigmoidTables {
  float sigmoid[kTableSize + 1];
  float loss_positive[kTableSize + 1];  // -log sigmoid(x)
  float loss_negative[kTableSize + 1];  // -log (1 - sigmoid(x))
  SigmoidTables() {
    for (int i = 0; i <= kTableSize; ++i) {
      const double x = (static_cast<double>(i) / kTableSize * 2.0 - 1.0) * kMaxExp;
      const double s = 1.0 / (1.0 + std::exp(-x));
      sigmoid[i] = static_cast<float>(s);
      loss_positive[i] = static_cast<float>(std::log1p(std::exp(-x)));
      loss_negative[i] = static_cast<float>(std::log1p(std::exp(x)));
    }
  }
};
const SigmoidTables kTables;

// (label - sigmoid(f)) * alpha with word2vec.c's clipping; adds the prediction's loss.
template <typename Sum>
LOOM_ALWAYS_INLINE float gradient(float f, bool positive, float alpha, Sum& loss) {
  if (f > kMaxExp) {
    if (!positive) loss += f;
    return positive ? 0.0f : -alpha;
  }
  if (!(f >= -kMaxExp)) {  // below the table, or NaN (weights that diverged): no index from it
    if (positive) loss -= f;
    return positive ? alpha : 0.0f;
  }
  const int i = static_cast<int>((f + kMaxExp) * kTableScale);
  loss += positive ? kTables.loss_positive[i] : kTables.loss_negative[i];
  return ((positive ? 1.0f : 0.0f) - kTables.sigmoid[i]) * alpha;
}

// out[t] = x . rows[t] for t < count, N rows at a time so that N accumulator chains overlap.
// Lanes is a GCC vector of kLanes floats: each clone lowers it to its widest registers.
typedef float Lanes __attribute__((vector_size(kLanes * sizeof(float))));

LOOM_ALWAYS_INLINE Lanes load_lanes(const float* p) {
  Lanes v;
  __builtin_memcpy(&v, p, sizeof v);
  return v;
}

// The sum of the lanes as a tree of halves, in registers (short dependency chain).
static_assert(kLanes == 16, "sum_lanes folds 16 lanes");
typedef float Lanes8 __attribute__((vector_size(8 * sizeof(float))));
typedef float Lanes4 __attribute__((vector_size(4 * sizeof(float))));
LOOM_ALWAYS_INLINE float sum_lanes(Lanes v) {
  const Lanes8 v8 = __builtin_shufflevector(v, v, 0, 1, 2, 3, 4, 5, 6, 7) +
                    __builtin_shufflevector(v, v, 8, 9, 10, 11, 12, 13, 14, 15);
  const Lanes4 v4 = __builtin_shufflevector(v8, v8, 0, 1, 2, 3) + __builtin_shufflevector(v8, v8, 4, 5, 6, 7);
  return (v4[0] + v4[2]) + (v4[1] + v4[3]);
}

template <int N>
LOOM_ALWAYS_INLINE void dot_block(const float* __restrict x, float* const* rows, std::int64_t n, float* out) {
  Lanes acc[N] = {};
  for (std::int64_t d = 0; d < n; d += kLanes) {
    const Lanes xv = load_lanes(x + d);
    for (int r = 0; r < N; ++r) acc[r] += xv * load_lanes(rows[r] + d);
  }
  for (int r = 0; r < N; ++r) out[r] = sum_lanes(acc[r]);
}

LOOM_ALWAYS_INLINE float dot(const float* x, float* row, std::int64_t n) {
  float out;
  dot_block<1>(x, &row, n, &out);
  return out;
}

LOOM_ALWAYS_INLINE void dot_many(const float* x, float* const* rows, int count, std::int64_t n, float* out) {
  int t = 0;
  for (; t + 4 <= count; t += 4) dot_block<4>(x, rows + t, n, out + t);
  if (t + 2 <= count) {
    dot_block<2>(x, rows + t, n, out + t);
    t += 2;
  }
  if (t < count) dot_block<1>(x, rows + t, n, out + t);
}

// y = (accumulate ? y : 0) + sum over r < count of coeff[r] rows[r], on n floats (a multiple of
// kLanes), V vectors of lanes at a time so that V accumulator chains overlap.
template <int V>
LOOM_ALWAYS_INLINE void combine_block(float* y, bool accumulate, const float* coeff, const float* const* rows,
                                      int count, std::int64_t d) {
  Lanes acc[V] = {};
  if (accumulate)
    for (int v = 0; v < V; ++v) acc[v] = load_lanes(y + d + v * kLanes);
  for (int r = 0; r < count; ++r) {
    const Lanes g = Lanes{} + coeff[r];
    for (int v = 0; v < V; ++v) acc[v] += g * load_lanes(rows[r] + d + v * kLanes);
  }
  __builtin_memcpy(y + d, acc, sizeof acc);
}

LOOM_ALWAYS_INLINE void combine_rows(float* y, bool accumulate, const float* coeff, const float* const* rows, int count,
                                     std::int64_t n) {
  std::int64_t d = 0;
  for (; d + 4 * kLanes <= n; d += 4 * kLanes) combine_block<4>(y, accumulate, coeff, rows, count, d);
  for (; d < n; d += kLanes) combine_block<1>(y, accumulate, coeff, rows, count, d);
}

// word2vec.c's update of one context row x against rows[t] with gradients g[t], in one pass:
// rows[t] += g[t] x (in order, so a repeated row sees its earlier update) and x += sum g[t] rows[t]
// (the rows as they were before their update).
template <int V>
LOOM_ALWAYS_INLINE void update_block(float* x, const float* g, float* const* rows, int count, std::int64_t d) {
  Lanes xv[V], acc[V] = {};
  for (int v = 0; v < V; ++v) xv[v] = load_lanes(x + d + v * kLanes);
  for (int r = 0; r < count; ++r) {
    const Lanes gv = Lanes{} + g[r];
    for (int v = 0; v < V; ++v) {
      float* w = rows[r] + d + v * kLanes;
      const Lanes wv = load_lanes(w);
      acc[v] += gv * wv;
      const Lanes updated = wv + gv * xv[v];
      __builtin_memcpy(w, &updated, sizeof updated);
    }
  }
  for (int v = 0; v < V; ++v) xv[v] += acc[v];
  __builtin_memcpy(x + d, xv, sizeof xv);
}

LOOM_ALWAYS_INLINE void update_rows(float* x, const float* g, float* const* rows, int count, std::int64_t n) {
  std::int64_t d = 0;
  for (; d + 4 * kLanes <= n; d += 4 * kLanes) update_block<4>(x, g, rows, count, d);
  for (; d < n; d += kLanes) update_block<1>(x, g, rows, count, d);
}

LOOM_ALWAYS_INLINE void axpy(float g, const float* __restrict x, float* __restrict y, std::int64_t n) {
  for (std::int64_t d = 0; d < n; ++d) y[d] += g * x[d];
}

// The window of centre `i`: word2vec.c shrinks it to a uniform size in [1, window].
inline int gather_contexts(std::span<const std::int32_t> sentence, std::int64_t i, int window, core::Rng& rng,
                           std::int32_t* contexts) {
  const auto n = static_cast<std::int64_t>(sentence.size());
  const auto reach =
      static_cast<std::int64_t>(window) - static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(window)));
  const std::int64_t lo = std::max<std::int64_t>(0, i - reach), hi = std::min<std::int64_t>(n - 1, i + reach);
  int count = 0;
  for (std::int64_t j = lo; j <= hi; ++j)
    if (j != i) contexts[count++] = sentence[static_cast<std::size_t>(j)];
  return count;
}

// targets[0] = centre, then up to `negative` draws that differ from it.
inline int draw_targets(std::int32_t centre, const KernelParams& p, core::Rng& rng, std::int32_t* targets) {
  int count = 0;
  targets[count++] = centre;
  for (int k = 0; k < p.negative; ++k) {
    const std::int32_t t = (*p.negatives)(rng);
    if (t != centre) targets[count++] = t;
  }
  return count;
}

}  // namespace

KernelScratch::KernelScratch(int window, int negative, std::int64_t stride)
    : contexts_(static_cast<std::size_t>(2 * window)),
      targets_(static_cast<std::size_t>(negative + 1)),
      gradients_(static_cast<std::size_t>(2 * window * (negative + 1))),
      dots_(static_cast<std::size_t>(negative + 1)),
      column_(static_cast<std::size_t>(negative + 1)),
      context_rows_(static_cast<std::size_t>(2 * window)),
      target_rows_(static_cast<std::size_t>(negative + 1)),
      rows_(2 * window, stride),
      vecs_(2, stride) {}

LOOM_CPU_CLONES
double sg_hogwild(const KernelParams& p, std::span<const std::int32_t> sentence, float alpha, core::Rng& rng,
                  KernelScratch& scratch, std::int64_t& predictions) {
  const std::int64_t ld = p.stride;
  std::int32_t* contexts = scratch.contexts();
  std::int32_t* targets = scratch.targets();
  float* neu1e = scratch.vec_a();
  double loss = 0;
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(sentence.size()); ++i) {
    const std::int32_t centre = sentence[static_cast<std::size_t>(i)];
    const int nc = gather_contexts(sentence, i, p.window, rng, contexts);
    for (int c = 0; c < nc; ++c) {
      float* l1 = p.input + contexts[c] * ld;
      std::fill(neu1e, neu1e + ld, 0.0f);
      const int nt = draw_targets(centre, p, rng, targets);
      for (int t = 0; t < nt; ++t) {
        float* l2 = p.output + targets[t] * ld;
        const float g = gradient(dot(l1, l2, ld), t == 0, alpha, loss);
        axpy(g, l2, neu1e, ld);
        axpy(g, l1, l2, ld);
      }
      predictions += nt;
      for (std::int64_t d = 0; d < ld; ++d) l1[d] += neu1e[d];
    }
  }
  return loss;
}

LOOM_CPU_CLONES
double sg_batched(const KernelParams& p, std::span<const std::int32_t> sentence, float alpha, core::Rng& rng,
                  KernelScratch& scratch, std::int64_t& predictions) {
  const std::int64_t ld = p.stride;
  std::int32_t* contexts = scratch.contexts();
  std::int32_t* targets = scratch.targets();
  const float** context_rows = scratch.context_rows();
  float** target_rows = scratch.target_rows();
  float* grad = scratch.gradients();  // nt x nc: column c holds context c's gradients
  float* delta = scratch.rows();      // nc x ld: updates of the context rows
  double loss = 0;
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(sentence.size()); ++i) {
    const std::int32_t centre = sentence[static_cast<std::size_t>(i)];
    const int nc = gather_contexts(sentence, i, p.window, rng, contexts);
    if (nc == 0) continue;
    const int nt = draw_targets(centre, p, rng, targets);
    for (int c = 0; c < nc; ++c) context_rows[c] = p.input + contexts[c] * ld;
    for (int t = 0; t < nt; ++t) target_rows[t] = p.output + targets[t] * ld;
    // G = (labels - sigmoid(C W^T)) * alpha, C = context input rows, W = [centre; negatives] output rows.
    float* dots = scratch.dots();
    for (int c = 0; c < nc; ++c) {
      dot_many(context_rows[c], target_rows, nt, ld, dots);
      for (int t = 0; t < nt; ++t) grad[t * nc + c] = gradient(dots[t], t == 0, alpha, loss);
    }
    predictions += static_cast<std::int64_t>(nc) * nt;
    // dC = G W (on the unchanged W).
    float* column = scratch.column();
    for (int c = 0; c < nc; ++c) {
      for (int t = 0; t < nt; ++t) column[t] = grad[t * nc + c];
      combine_rows(delta + c * ld, false, column, target_rows, nt, ld);
    }
    // W += G^T C (on the unchanged C).
    for (int t = 0; t < nt; ++t) combine_rows(p.output + targets[t] * ld, true, grad + t * nc, context_rows, nc, ld);
    // C += dC.
    for (int c = 0; c < nc; ++c) {
      float* x = p.input + contexts[c] * ld;
      const float* dx = delta + c * ld;
      for (std::int64_t d = 0; d < ld; ++d) x[d] += dx[d];
    }
  }
  return loss;
}

LOOM_CPU_CLONES
double sg_shared(const KernelParams& p, std::span<const std::int32_t> sentence, float alpha, core::Rng& rng,
                 KernelScratch& scratch, std::int64_t& predictions) {
  const std::int64_t ld = p.stride;
  std::int32_t* contexts = scratch.contexts();
  std::int32_t* targets = scratch.targets();
  float** target_rows = scratch.target_rows();
  float* g = scratch.dots();
  double loss = 0;
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(sentence.size()); ++i) {
    const int nc = gather_contexts(sentence, i, p.window, rng, contexts);
    if (nc == 0) continue;
    // One set of negatives for the window; then word2vec.c's per-pair updates, context by context.
    const int nt = draw_targets(sentence[static_cast<std::size_t>(i)], p, rng, targets);
    for (int t = 0; t < nt; ++t) target_rows[t] = p.output + targets[t] * ld;
    float window_loss = 0;  // summed in float per window: a double chain per prediction costs time
    for (int c = 0; c < nc; ++c) {
      float* x = p.input + contexts[c] * ld;
      dot_many(x, target_rows, nt, ld, g);
      for (int t = 0; t < nt; ++t) g[t] = gradient(g[t], t == 0, alpha, window_loss);
      update_rows(x, g, target_rows, nt, ld);
    }
    loss += window_loss;
    predictions += static_cast<std::int64_t>(nc) * nt;
  }
  return loss;
}

LOOM_CPU_CLONES
double cbow(const KernelParams& p, std::span<const std::int32_t> sentence, float alpha, core::Rng& rng,
            KernelScratch& scratch, std::int64_t& predictions) {
  const std::int64_t ld = p.stride;
  std::int32_t* contexts = scratch.contexts();
  std::int32_t* targets = scratch.targets();
  float* neu1 = scratch.vec_a();
  float* neu1e = scratch.vec_b();
  double loss = 0;
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(sentence.size()); ++i) {
    const std::int32_t centre = sentence[static_cast<std::size_t>(i)];
    const int nc = gather_contexts(sentence, i, p.window, rng, contexts);
    if (nc == 0) continue;
    std::fill(neu1, neu1 + ld, 0.0f);
    std::fill(neu1e, neu1e + ld, 0.0f);
    for (int c = 0; c < nc; ++c) {
      const float* x = p.input + contexts[c] * ld;
      for (std::int64_t d = 0; d < ld; ++d) neu1[d] += x[d];
    }
    const float inv = 1.0f / static_cast<float>(nc);
    for (std::int64_t d = 0; d < ld; ++d) neu1[d] *= inv;
    const int nt = draw_targets(centre, p, rng, targets);
    for (int t = 0; t < nt; ++t) {
      float* l2 = p.output + targets[t] * ld;
      const float g = gradient(dot(neu1, l2, ld), t == 0, alpha, loss);
      axpy(g, l2, neu1e, ld);
      axpy(g, neu1, l2, ld);
    }
    predictions += nt;
    for (int c = 0; c < nc; ++c) {
      float* x = p.input + contexts[c] * ld;
      for (std::int64_t d = 0; d < ld; ++d) x[d] += neu1e[d];
    }
  }
  return loss;
}

}  // namespace loom::embed::detail
