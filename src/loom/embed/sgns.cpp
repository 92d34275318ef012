#include "loom/embed/sgns.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cmath>

#include <fmt/format.h>

#include "loom/core/error.hpp"
#include "loom/core/parallel.hpp"
#include "loom/core/progress.hpp"
#include "loom/core/rng.hpp"
#include "loom/core/timer.hpp"
#include "loom/embed/sampling.hpp"
#include "loom/embed/sgns_kernels.hpp"

namespace loom::embed {

SgnsKernel parse_sgns_kernel(const std::string& name) {
  if (name == "hogwild") return SgnsKernel::kHogwild;
  if (name == "shared") return SgnsKernel::kShared;
  if (name == "batched") return SgnsKernel::kBatched;
  throw Error::in_argument("--kernel", "unknown kernel '" + name + "' (expected hogwild, shared or batched)");
}

std::string sgns_kernel_name(SgnsKernel kernel) {
  switch (kernel) {
    case SgnsKernel::kHogwild: return "hogwild";
    case SgnsKernel::kShared: return "shared";
    case SgnsKernel::kBatched: return "batched";
  }
  return "?";
}

void validate(const SgnsOptions& o) {
  LOOM_CHECK_ARG(o.dim >= 1 && o.dim <= 100000, "--dim", "must be in [1, 100000], got {}", o.dim);
  LOOM_CHECK_ARG(o.window >= 1 && o.window <= 1000, "--window", "must be in [1, 1000], got {}", o.window);
  LOOM_CHECK_ARG(o.negative >= 1 && o.negative <= 1000, "--negative", "must be in [1, 1000], got {}", o.negative);
  LOOM_CHECK_ARG(o.epochs >= 1, "--epochs", "must be >= 1, got {}", o.epochs);
  LOOM_CHECK_ARG(o.alpha > 0 && std::isfinite(o.alpha), "--alpha", "must be > 0, got {}", o.alpha);
  LOOM_CHECK_ARG(o.threads >= 1, "--threads", "must be >= 1, got {}", o.threads);
  LOOM_CHECK_ARG(o.sample >= 0 && std::isfinite(o.sample), "--sample", "must be >= 0, got {}", o.sample);
  LOOM_CHECK_ARG(o.init_range > 0 && std::isfinite(o.init_range), "--init-range", "must be > 0, got {}", o.init_range);
}

SgnsModel init_sgns_model(std::int64_t rows, const SgnsOptions& options) {
  const std::int64_t dim = options.dim;
  SgnsModel model{EmbeddingMatrix(rows, dim), EmbeddingMatrix(rows, dim)};
  const core::Rng base = core::Rng(options.seed).split(0x1417);
  const float scale = static_cast<float>(2.0 * options.init_range) / static_cast<float>(dim);
  core::parallel_for_blocks(rows, 4096, [&](std::int64_t begin, std::int64_t end, std::int64_t block) {
    core::Rng rng = base.split(static_cast<std::uint64_t>(block));
    for (std::int64_t r = begin; r < end; ++r) {
      float* row = model.input.row(r);
      for (std::int64_t d = 0; d < dim; ++d) row[d] = (rng.uniform_float() - 0.5f) * scale;
    }
  });
  return model;
}

namespace {

// Sentences [first[t], first[t+1]) go to thread t, balanced by token count.
std::vector<std::int64_t> thread_slices(const Corpus& corpus, int threads) {
  std::vector<std::int64_t> first(static_cast<std::size_t>(threads) + 1, corpus.num_sentences());
  first[0] = 0;
  for (int t = 1; t < threads; ++t) {
    const std::int64_t token = corpus.num_tokens() * t / threads;
    first[static_cast<std::size_t>(t)] =
        std::lower_bound(corpus.offsets.begin(), corpus.offsets.end() - 1, token) - corpus.offsets.begin();
  }
  return first;
}

constexpr std::int64_t kSyncWords = 10000;  // words between learning-rate / progress updates

}  // namespace

SgnsStats train_sgns(const Corpus& corpus, std::span<const std::int64_t> counts, const SgnsOptions& options,
                     SgnsModel& model) {
  validate(options);
  const auto vocab_size = static_cast<std::int64_t>(counts.size());
  LOOM_CHECK(vocab_size > 0, "train: empty vocabulary");
  LOOM_CHECK(corpus.num_tokens() > 0, "train: empty corpus");
  LOOM_CHECK(model.input.rows() == vocab_size && model.output.rows() == vocab_size && model.input.dim() == options.dim,
             "train: model is {} x {}, expected {} x {}", model.input.rows(), model.input.dim(), vocab_size, options.dim);
  for (const auto token : corpus.tokens)
    LOOM_CHECK(token >= 0 && token < vocab_size, "train: corpus token {} outside the vocabulary [0, {})", token, vocab_size);

  const Subsampler subsampler(counts, options.sample);
  const NegativeSampler negatives(counts);
  detail::KernelParams params;
  params.input = model.input.data();
  params.output = model.output.data();
  params.stride = model.input.stride();
  params.window = options.window;
  params.negative = options.negative;
  params.negatives = &negatives;
  const auto kernel = options.cbow                              ? detail::cbow
                      : options.kernel == SgnsKernel::kHogwild ? detail::sg_hogwild
                      : options.kernel == SgnsKernel::kShared  ? detail::sg_shared
                                                               : detail::sg_batched;

  const int threads = static_cast<int>(std::min<std::int64_t>(options.threads, std::max<std::int64_t>(1, corpus.num_sentences())));
  const auto slices = thread_slices(corpus, threads);
  const std::int64_t schedule = options.epochs * corpus.num_tokens();
  const core::Rng base(options.seed);
  std::atomic<std::int64_t> words_done{0};
  std::vector<double> last_loss(static_cast<std::size_t>(threads), 0.0);
  std::vector<std::int64_t> last_predictions(static_cast<std::size_t>(threads), 0);
  core::ProgressBar bar(options.label, schedule, "words");
  bar.set_quiet(!options.progress);
  core::ExceptionCarrier carrier;
  core::Timer timer;

#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num();
    carrier.run([&] {
      detail::KernelScratch scratch(options.window, options.negative, params.stride);
      std::vector<std::int32_t> kept;
      float alpha = static_cast<float>(options.alpha * std::max(1.0 - options.schedule_begin, options.min_alpha_fraction));
      std::int64_t pending = 0, window_predictions = 0;
      double window_loss = 0;
      for (int epoch = 0; epoch < options.epochs && !carrier.failed(); ++epoch) {
        double epoch_loss = 0;
        std::int64_t epoch_predictions = 0;
        for (std::int64_t s = slices[static_cast<std::size_t>(t)]; s < slices[static_cast<std::size_t>(t) + 1]; ++s) {
          core::Rng rng = base.split(static_cast<std::uint64_t>(epoch), static_cast<std::uint64_t>(s));
          const auto sentence = corpus.sentence(s);
          kept.clear();
          for (const auto w : sentence)
            if (subsampler.keep(w, rng)) kept.push_back(w);
          std::int64_t predictions = 0;
          const double loss = kernel(params, kept, alpha, rng, scratch, predictions);
          epoch_loss += loss;
          epoch_predictions += predictions;
          window_loss += loss;
          window_predictions += predictions;
          pending += static_cast<std::int64_t>(sentence.size());
          if (pending >= kSyncWords) {
            const std::int64_t done = words_done.fetch_add(pending, std::memory_order_relaxed) + pending;
            const double left = 1.0 - (options.schedule_begin + (options.schedule_end - options.schedule_begin) *
                                                              static_cast<double>(done) / static_cast<double>(schedule + 1));
            alpha = static_cast<float>(options.alpha * std::max(left, options.min_alpha_fraction));
            bar.update(pending, fmt::format("loss {:.4f} lr {:.5f}",
                                            window_predictions ? window_loss / static_cast<double>(window_predictions) : 0.0, alpha));
            pending = 0;
            window_loss = 0;
            window_predictions = 0;
          }
        }
        last_loss[static_cast<std::size_t>(t)] = epoch_loss;
        last_predictions[static_cast<std::size_t>(t)] = epoch_predictions;
      }
      words_done.fetch_add(pending, std::memory_order_relaxed);
      bar.update(pending);
    });
  }
  carrier.rethrow();

  SgnsStats stats;
  stats.seconds = timer.seconds();
  stats.words = words_done.load();
  stats.words_per_second = stats.seconds > 0 ? static_cast<double>(stats.words) / stats.seconds : 0.0;
  double loss = 0;
  std::int64_t predictions = 0;
  for (int t = 0; t < threads; ++t) {
    loss += last_loss[static_cast<std::size_t>(t)];
    predictions += last_predictions[static_cast<std::size_t>(t)];
  }
  stats.loss = predictions ? loss / static_cast<double>(predictions) : 0.0;
  bar.finish(fmt::format("loss {:.4f}", stats.loss));
  return stats;
}

}  // namespace loom::embed
