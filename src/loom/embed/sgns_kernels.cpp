#include "loom/embed/sgns_kernels.hpp"

#include <algorithm>
#include <cmath>

// The kernels are compiled twice, for AVX2+FMA and for baseline x86-64, and the loader picks the
// clone the CPU supports (GCC function multi-versioning), so one binary is fast and portable.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define LOOM_EMBED_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define LOOM_EMBED_CLONES
#endif

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
inline float gradient(float f, bool positive, float alpha, double& loss) {
  if (f > kMaxExp) {
    if (!positive) loss += f;
    return positive ? 0.0f : -alpha;
  }
  if (f < -kMaxExp) {
    if (positive) loss -= f;
    return positive ? alpha : 0.0f;
  }
  const int i = static_cast<int>((f + kMaxExp) * kTableScale);
  loss += positive ? kTables.loss_positive[i] : kTables.loss_negative[i];
  return ((positive ? 1.0f : 0.0f) - kTables.sigmoid[i]) * alpha;
}

inline float dot(const float* __restrict a, const float* __restrict b, std::int64_t n) {
  float acc[kLanes] = {};
  for (std::int64_t d = 0; d < n; d += kLanes)
    for (int k = 0; k < kLanes; ++k) acc[k] += a[d + k] * b[d + k];
  float s = 0;
  for (int k = 0; k < kLanes; ++k) s += acc[k];
  return s;
}

inline void axpy(float g, const float* __restrict x, float* __restrict y, std::int64_t n) {
  for (std::int64_t d = 0; d < n; ++d) y[d] += g * x[d];
}

// The window of centre `i`: word2vec.c shrinks it to a uniform size in [1, window].
inline int gather_contexts(std::span<const std::int32_t> sentence, std::int64_t i, int window, core::Rng& rng,
                           std::int32_t* contexts) {
  const auto n = static_cast<std::int64_t>(sentence.size());
  const auto reach = static_cast<std::int64_t>(window) - static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(window)));
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
      rows_(2 * window, stride),
      vecs_(2, stride) {}

LOOM_EMBED_CLONES
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

LOOM_EMBED_CLONES
double sg_batched(const KernelParams& p, std::span<const std::int32_t> sentence, float alpha, core::Rng& rng,
                  KernelScratch& scratch, std::int64_t& predictions) {
  const std::int64_t ld = p.stride;
  std::int32_t* contexts = scratch.contexts();
  std::int32_t* targets = scratch.targets();
  float* grad = scratch.gradients();  // nc x nt
  float* delta = scratch.rows();      // nc x ld: updates of the context rows
  double loss = 0;
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(sentence.size()); ++i) {
    const std::int32_t centre = sentence[static_cast<std::size_t>(i)];
    const int nc = gather_contexts(sentence, i, p.window, rng, contexts);
    if (nc == 0) continue;
    const int nt = draw_targets(centre, p, rng, targets);
    // G = (labels - sigmoid(C W^T)) * alpha, C = context input rows, W = [centre; negatives] output rows.
    for (int c = 0; c < nc; ++c) {
      const float* x = p.input + contexts[c] * ld;
      for (int t = 0; t < nt; ++t)
        grad[c * nt + t] = gradient(dot(x, p.output + targets[t] * ld, ld), t == 0, alpha, loss);
    }
    predictions += static_cast<std::int64_t>(nc) * nt;
    // dC = G W (on the unchanged W).
    for (int c = 0; c < nc; ++c) {
      float* out = delta + c * ld;
      for (std::int64_t d = 0; d < ld; d += kLanes) {
        float acc[kLanes] = {};
        for (int t = 0; t < nt; ++t) {
          const float g = grad[c * nt + t];
          const float* w = p.output + targets[t] * ld + d;
          for (int k = 0; k < kLanes; ++k) acc[k] += g * w[k];
        }
        for (int k = 0; k < kLanes; ++k) out[d + k] = acc[k];
      }
    }
    // W += G^T C (on the unchanged C).
    for (int t = 0; t < nt; ++t) {
      float* w = p.output + targets[t] * ld;
      for (std::int64_t d = 0; d < ld; d += kLanes) {
        float acc[kLanes];
        for (int k = 0; k < kLanes; ++k) acc[k] = w[d + k];
        for (int c = 0; c < nc; ++c) {
          const float g = grad[c * nt + t];
          const float* x = p.input + contexts[c] * ld + d;
          for (int k = 0; k < kLanes; ++k) acc[k] += g * x[k];
        }
        for (int k = 0; k < kLanes; ++k) w[d + k] = acc[k];
      }
    }
    // C += dC.
    for (int c = 0; c < nc; ++c) {
      float* x = p.input + contexts[c] * ld;
      const float* dx = delta + c * ld;
      for (std::int64_t d = 0; d < ld; ++d) x[d] += dx[d];
    }
  }
  return loss;
}

LOOM_EMBED_CLONES
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
