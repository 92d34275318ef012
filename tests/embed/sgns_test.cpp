// The SGNS trainer: words that co-occur end up closer than words that never do (both kernels and
// CBOW), one thread is deterministic for a seed, and bad options name the CLI option.
#include <cmath>

#include <gtest/gtest.h>

#include "loom/core/error.hpp"
#include "loom/core/rng.hpp"
#include "loom/embed/sgns.hpp"

namespace loom::embed {
namespace {

constexpr int kGroups = 4, kGroupWords = 8;

// Sentences of 12 words, each drawn from a single group of 8 words.
Corpus grouped_corpus(int sentences) {
  Corpus corpus;
  core::Rng rng(11);
  for (int s = 0; s < sentences; ++s) {
    const auto group = static_cast<std::int32_t>(rng.below(kGroups));
    for (int i = 0; i < 12; ++i)
      corpus.tokens.push_back(group * kGroupWords + static_cast<std::int32_t>(rng.below(kGroupWords)));
    corpus.offsets.push_back(static_cast<std::int64_t>(corpus.tokens.size()));
  }
  return corpus;
}

std::vector<std::int64_t> counts_of(const Corpus& corpus) {
  std::vector<std::int64_t> counts(kGroups * kGroupWords, 0);
  for (auto t : corpus.tokens) ++counts[static_cast<std::size_t>(t)];
  return counts;
}

double cosine(const EmbeddingMatrix& m, int a, int b) {
  double ab = 0, aa = 0, bb = 0;
  for (std::int64_t d = 0; d < m.dim(); ++d) {
    ab += m.row(a)[d] * m.row(b)[d];
    aa += m.row(a)[d] * m.row(a)[d];
    bb += m.row(b)[d] * m.row(b)[d];
  }
  return ab / std::sqrt(aa * bb);
}

SgnsOptions small_options() {
  SgnsOptions o;
  o.dim = 16;
  o.window = 3;
  o.negative = 5;
  o.sample = 0;
  o.epochs = 3;
  o.threads = 1;
  o.progress = false;
  return o;
}

struct Separation {
  double within = 0, across = 0;
};

Separation train_and_measure(const SgnsOptions& options) {
  const Corpus corpus = grouped_corpus(2000);
  const auto counts = counts_of(corpus);
  SgnsModel model = init_sgns_model(static_cast<std::int64_t>(counts.size()), options);
  const auto stats = train_sgns(corpus, counts, options, model);
  EXPECT_EQ(stats.words, options.epochs * corpus.num_tokens());
  EXPECT_GT(stats.loss, 0.0);
  Separation s;
  int nw = 0, na = 0;
  for (int a = 0; a < kGroups * kGroupWords; ++a)
    for (int b = a + 1; b < kGroups * kGroupWords; ++b) {
      if (a / kGroupWords == b / kGroupWords) {
        s.within += cosine(model.input, a, b);
        ++nw;
      } else {
        s.across += cosine(model.input, a, b);
        ++na;
      }
    }
  s.within /= nw;
  s.across /= na;
  return s;
}

TEST(Sgns, BatchedKernelPutsCooccurringWordsCloser) {
  const auto s = train_and_measure(small_options());
  EXPECT_GT(s.within, s.across + 0.4) << s.within << " vs " << s.across;
}

TEST(Sgns, HogwildKernelPutsCooccurringWordsCloser) {
  auto o = small_options();
  o.kernel = SgnsKernel::kHogwild;
  const auto s = train_and_measure(o);
  EXPECT_GT(s.within, s.across + 0.4) << s.within << " vs " << s.across;
}

TEST(Sgns, CbowPutsCooccurringWordsCloser) {
  auto o = small_options();
  o.cbow = true;
  o.alpha = 0.05;
  const auto s = train_and_measure(o);
  EXPECT_GT(s.within, s.across + 0.4) << s.within << " vs " << s.across;
}

TEST(Sgns, OneThreadIsDeterministicForASeed) {
  const Corpus corpus = grouped_corpus(300);
  const auto counts = counts_of(corpus);
  auto o = small_options();
  o.sample = 1e-2;
  const auto run = [&](std::uint64_t seed) {
    o.seed = seed;
    SgnsModel model = init_sgns_model(static_cast<std::int64_t>(counts.size()), o);
    train_sgns(corpus, counts, o, model);
    return std::vector<float>(model.input.data(), model.input.data() + model.input.rows() * model.input.stride());
  };
  EXPECT_EQ(run(3), run(3));
  EXPECT_NE(run(3), run(4));
}

TEST(Sgns, TwoThreadsTrainEveryWord) {
  const Corpus corpus = grouped_corpus(500);
  const auto counts = counts_of(corpus);
  auto o = small_options();
  o.threads = 2;
  SgnsModel model = init_sgns_model(static_cast<std::int64_t>(counts.size()), o);
  const auto stats = train_sgns(corpus, counts, o, model);
  EXPECT_EQ(stats.words, o.epochs * corpus.num_tokens());
}

void expect_argument_error(SgnsOptions o, const std::string& name) {
  try {
    check(o);
    FAIL() << name;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
  }
}

TEST(Sgns, BadOptionsNameTheOption) {
  auto o = small_options();
  o.dim = 0;
  expect_argument_error(o, "--dim");
  o = small_options();
  o.window = 0;
  expect_argument_error(o, "--window");
  o = small_options();
  o.negative = 0;
  expect_argument_error(o, "--negative");
  o = small_options();
  o.epochs = 0;
  expect_argument_error(o, "--epochs");
  o = small_options();
  o.alpha = -1;
  expect_argument_error(o, "--alpha");
  EXPECT_THROW(core::parse_enum(kSgnsKernelNames, "simd", "--kernel"), Error);
}

TEST(Sgns, CorpusTokenOutsideTheVocabularyIsAnError) {
  Corpus corpus;
  corpus.tokens = {0, 5};
  corpus.offsets = {0, 2};
  const std::vector<std::int64_t> counts{1, 1};
  auto o = small_options();
  o.dim = 4;
  SgnsModel model = init_sgns_model(2, o);
  EXPECT_THROW(train_sgns(corpus, counts, o, model), Error);
}

}  // namespace
}  // namespace loom::embed
