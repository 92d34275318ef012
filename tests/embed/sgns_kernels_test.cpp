// The SGNS kernels against scalar references written from their definitions (sgns.hpp): the same
// sentence, weights and random draws must give the same weights, loss and prediction count. The
// vocabulary is tiny so windows repeat words and negatives repeat rows; dimensions 20 and 70 cover
// both the short and the blocked row loops.
#include <cmath>
#include <functional>
#include <vector>

#include <gtest/gtest.h>

#include "loom/core/rng.hpp"
#include "loom/embed/sgns_kernels.hpp"

namespace loom::embed::detail {
namespace {

constexpr int kVocabulary = 12, kWindow = 4, kNegative = 5;
constexpr float kAlpha = 0.025f;

// word2vec.c's table: sigmoid and loss at the cell of f, clipped to +-6.
struct Prediction {
  float gradient;
  double loss;
};
Prediction predict(float f, bool positive) {
  if (f > 6) return {positive ? 0.0f : -kAlpha, positive ? 0.0 : f};
  if (f < -6) return {positive ? kAlpha : 0.0f, positive ? -f : 0.0};
  const int i = static_cast<int>((f + 6.0f) * (1000 / 6.0f / 2.0f));
  const double x = (static_cast<double>(i) / 1000 * 2.0 - 1.0) * 6;
  const auto sigmoid = static_cast<float>(1.0 / (1.0 + std::exp(-x)));
  return {((positive ? 1.0f : 0.0f) - sigmoid) * kAlpha, positive ? std::log1p(std::exp(-x)) : std::log1p(std::exp(x))};
}

using Row = std::vector<float>;
float dot(const Row& a, const Row& b) {
  float s = 0;
  for (std::size_t d = 0; d < a.size(); ++d) s += a[d] * b[d];
  return s;
}

struct Model {
  std::vector<Row> input, output;
};

struct Outcome {
  double loss = 0;
  std::int64_t predictions = 0;
};

std::vector<std::int32_t> window_of(const std::vector<std::int32_t>& sentence, std::size_t i, core::Rng& rng) {
  const auto reach = static_cast<std::int64_t>(kWindow - rng.below(kWindow));
  std::vector<std::int32_t> contexts;
  for (auto j = static_cast<std::int64_t>(i) - reach; j <= static_cast<std::int64_t>(i) + reach; ++j)
    if (j >= 0 && j < static_cast<std::int64_t>(sentence.size()) && j != static_cast<std::int64_t>(i))
      contexts.push_back(sentence[static_cast<std::size_t>(j)]);
  return contexts;
}

std::vector<std::int32_t> targets_of(std::int32_t centre, const NegativeSampler& negatives, core::Rng& rng) {
  std::vector<std::int32_t> targets{centre};
  for (int k = 0; k < kNegative; ++k)
    if (const auto t = negatives(rng); t != centre) targets.push_back(t);
  return targets;
}

// Context row x against targets, in target order: neu1e += g w_t and w_t += g x, then x += neu1e.
// word2vec.c takes each dot product just before its update (a repeated negative sees its earlier
// update); the shared kernel takes all of a context's dot products first.
void sequential_pair(Row& x, const std::vector<std::int32_t>& targets, bool dots_first, Model& m, Outcome& out) {
  std::vector<float> g(targets.size());
  const auto gradient = [&](std::size_t t) {
    const auto p = predict(dot(x, m.output[static_cast<std::size_t>(targets[t])]), t == 0);
    out.loss += p.loss;
    return p.gradient;
  };
  if (dots_first)
    for (std::size_t t = 0; t < targets.size(); ++t) g[t] = gradient(t);
  Row neu1e(x.size(), 0.0f);
  for (std::size_t t = 0; t < targets.size(); ++t) {
    if (!dots_first) g[t] = gradient(t);
    Row& w = m.output[static_cast<std::size_t>(targets[t])];
    for (std::size_t d = 0; d < x.size(); ++d) {
      neu1e[d] += g[t] * w[d];
      w[d] += g[t] * x[d];
    }
  }
  for (std::size_t d = 0; d < x.size(); ++d) x[d] += neu1e[d];
  out.predictions += static_cast<std::int64_t>(targets.size());
}

// hogwild: fresh negatives for every (centre, context) pair, drawn when the pair is trained.
Outcome reference_hogwild(const std::vector<std::int32_t>& sentence, const NegativeSampler& negatives, core::Rng rng,
                          Model& m) {
  Outcome out;
  for (std::size_t i = 0; i < sentence.size(); ++i)
    for (const auto c : window_of(sentence, i, rng)) {
      const auto targets = targets_of(sentence[i], negatives, rng);
      sequential_pair(m.input[static_cast<std::size_t>(c)], targets, false, m, out);
    }
  return out;
}

// Each window with contexts, with its one set of negatives (drawn after the window's shrink).
template <class F>
void for_each_window(const std::vector<std::int32_t>& sentence, const NegativeSampler& negatives, core::Rng& rng,
                     F&& f) {
  for (std::size_t i = 0; i < sentence.size(); ++i) {
    const auto contexts = window_of(sentence, i, rng);
    if (!contexts.empty()) f(contexts, targets_of(sentence[i], negatives, rng));
  }
}

// shared: one set of negatives per window, then the contexts one after the other.
Outcome reference_shared(const std::vector<std::int32_t>& sentence, const NegativeSampler& negatives, core::Rng rng,
                         Model& m) {
  Outcome out;
  for_each_window(sentence, negatives, rng, [&](const auto& contexts, const auto& targets) {
    for (const auto c : contexts) sequential_pair(m.input[static_cast<std::size_t>(c)], targets, true, m, out);
  });
  return out;
}

// batched: one set of negatives per window; every gradient on the weights as they were before it.
Outcome reference_batched(const std::vector<std::int32_t>& sentence, const NegativeSampler& negatives, core::Rng rng,
                          Model& m) {
  Outcome out;
  for_each_window(sentence, negatives, rng, [&](const auto& contexts, const auto& targets) {
    const Model before = m;
    for (std::size_t c = 0; c < contexts.size(); ++c)
      for (std::size_t t = 0; t < targets.size(); ++t) {
        const Row& x = before.input[static_cast<std::size_t>(contexts[c])];
        const Row& w = before.output[static_cast<std::size_t>(targets[t])];
        const auto p = predict(dot(x, w), t == 0);
        out.loss += p.loss;
        Row& x_new = m.input[static_cast<std::size_t>(contexts[c])];
        Row& w_new = m.output[static_cast<std::size_t>(targets[t])];
        for (std::size_t d = 0; d < x.size(); ++d) {
          x_new[d] += p.gradient * w[d];
          w_new[d] += p.gradient * x[d];
        }
      }
    out.predictions += static_cast<std::int64_t>(contexts.size() * targets.size());
  });
  return out;
}

using Kernel = double (*)(const KernelParams&, std::span<const std::int32_t>, float, core::Rng&, KernelScratch&,
                          std::int64_t&);
using Reference = std::function<Outcome(const std::vector<std::int32_t>&, const NegativeSampler&, core::Rng, Model&)>;

void expect_kernel_matches(Kernel kernel, const Reference& reference, std::int64_t dim) {
  core::Rng rng(7);
  std::vector<std::int32_t> sentence;
  for (int i = 0; i < 60; ++i) sentence.push_back(static_cast<std::int32_t>(rng.below(kVocabulary)));
  std::vector<std::int64_t> counts(kVocabulary);
  for (int w = 0; w < kVocabulary; ++w) counts[static_cast<std::size_t>(w)] = 1 + w * w;
  const NegativeSampler negatives(counts);

  Model model{std::vector<Row>(kVocabulary, Row(static_cast<std::size_t>(dim))),
              std::vector<Row>(kVocabulary, Row(static_cast<std::size_t>(dim)))};
  EmbeddingMatrix input(kVocabulary, dim), output(kVocabulary, dim);
  for (int w = 0; w < kVocabulary; ++w)
    for (std::int64_t d = 0; d < dim; ++d) {
      input.row(w)[d] = model.input[static_cast<std::size_t>(w)][static_cast<std::size_t>(d)] =
          rng.uniform_float() - 0.5f;
      output.row(w)[d] = model.output[static_cast<std::size_t>(w)][static_cast<std::size_t>(d)] =
          rng.uniform_float() - 0.5f;
    }

  const core::Rng draws(99);
  const Outcome expected = reference(sentence, negatives, draws, model);

  KernelParams params;
  params.input = input.data();
  params.output = output.data();
  params.stride = input.stride();
  params.window = kWindow;
  params.negative = kNegative;
  params.negatives = &negatives;
  KernelScratch scratch(kWindow, kNegative, input.stride());
  core::Rng kernel_draws = draws;
  std::int64_t predictions = 0;
  const double loss = kernel(params, sentence, kAlpha, kernel_draws, scratch, predictions);

  EXPECT_EQ(predictions, expected.predictions);
  EXPECT_NEAR(loss, expected.loss, 1e-4 * expected.loss);
  float worst = 0;
  for (int w = 0; w < kVocabulary; ++w)
    for (std::int64_t d = 0; d < dim; ++d) {
      worst = std::max(
          worst, std::abs(input.row(w)[d] - model.input[static_cast<std::size_t>(w)][static_cast<std::size_t>(d)]));
      worst = std::max(
          worst, std::abs(output.row(w)[d] - model.output[static_cast<std::size_t>(w)][static_cast<std::size_t>(d)]));
    }
  EXPECT_LT(worst, 2e-4) << "largest difference from the reference, dim " << dim;
  for (int w = 0; w < kVocabulary; ++w)  // the padding stays zero
    for (std::int64_t d = dim; d < input.stride(); ++d) EXPECT_EQ(input.row(w)[d], 0.0f);
}

TEST(SgnsKernels, HogwildIsWord2vecPerPairUpdate) {
  for (const std::int64_t dim : {20, 70}) expect_kernel_matches(sg_hogwild, reference_hogwild, dim);
}

TEST(SgnsKernels, SharedIsSequentialUpdatesWithOneNegativeSetPerWindow) {
  for (const std::int64_t dim : {20, 70}) expect_kernel_matches(sg_shared, reference_shared, dim);
}

TEST(SgnsKernels, BatchedIsOneStepPerWindowOnUnchangedWeights) {
  for (const std::int64_t dim : {20, 70}) expect_kernel_matches(sg_batched, reference_batched, dim);
}

}  // namespace
}  // namespace loom::embed::detail
