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

// What one worker thread carries from sentence to sentence and epoch to epoch.
struct WorkerState {
  WorkerState(const SgnsOptions& o, std::int64_t stride) : scratch(o.window, o.negative, stride) {}
  detail::KernelScratch scratch;
  std::vector<std::int32_t> kept;
  float alpha = 0;
  std::int64_t pending = 0;  // words not yet added to the shared count
  std::int64_t window_predictions = 0;
  double window_loss = 0;
  double epoch_loss = 0;
  std::int64_t epoch_predictions = 0;
};

}  // namespace

SgnsStats train_sgns(const Corpus& corpus, std::span<const std::int64_t> counts, const SgnsOptions& options,
                     SgnsModel& model, const SgnsSteps& steps) {
  validate(options);
  const auto vocab_size = static_cast<std::int64_t>(counts.size());
  LOOM_CHECK(vocab_size > 0, "train: empty vocabulary");
  LOOM_CHECK(corpus.num_tokens() > 0, "train: empty corpus");
  LOOM_CHECK(model.input.rows() == vocab_size && model.output.rows() == vocab_size && model.input.dim() == options.dim,
             "train: model is {} x {}, expected {} x {}", model.input.rows(), model.input.dim(), vocab_size, options.dim);
  for (const auto token : corpus.tokens)
    LOOM_CHECK(token >= 0 && token < vocab_size, "train: corpus token {} outside the vocabulary [0, {})", token, vocab_size);
  const int first_epoch = steps.start.epochs;
  LOOM_CHECK(steps.start.steps == 0 && first_epoch >= 0 && first_epoch < options.epochs,
             "train: cannot start at {} of {} epochs", steps.start.name(), options.epochs);

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

  // Each thread owns a slice of the sentences, so the team must have every thread asked for: no
  // more than OMP_THREAD_LIMIT allows (a batch scheduler's), whatever --threads says.
  const int threads = static_cast<int>(std::min<std::int64_t>({options.threads, std::max<std::int64_t>(1, corpus.num_sentences()),
                                                               omp_get_thread_limit()}));
  const auto slices = thread_slices(corpus, threads);
  const std::int64_t schedule = options.epochs * corpus.num_tokens();
  // The learning rate once `done` words of the whole schedule are done.
  const auto alpha_at = [&](std::int64_t done) {
    const double left = 1.0 - (options.schedule_begin + (options.schedule_end - options.schedule_begin) *
                                                            static_cast<double>(done) / static_cast<double>(schedule + 1));
    return static_cast<float>(options.alpha * std::max(left, options.min_alpha_fraction));
  };
  const core::Rng base(options.seed);
  std::atomic<std::int64_t> words_done{first_epoch * corpus.num_tokens()};
  std::vector<WorkerState> workers;
  workers.reserve(static_cast<std::size_t>(threads));
  for (int t = 0; t < threads; ++t) workers.emplace_back(options, params.stride).alpha = alpha_at(words_done.load());
  core::ProgressBar bar(options.label, schedule, "words");
  bar.set_quiet(!options.progress);
  bar.update(words_done.load());
  core::ExceptionCarrier carrier;
  core::Timer timer;
  bool go_on = true;  // written by one thread between barriers, read by all after them
  const std::int64_t words_before = words_done.load();

#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num();
    WorkerState& w = workers[static_cast<std::size_t>(t)];
    for (int epoch = first_epoch; go_on; ++epoch) {
      carrier.run([&] {
        LOOM_CHECK(omp_get_num_threads() == threads, "train: OpenMP started {} of {} threads", omp_get_num_threads(), threads);
        w.epoch_loss = 0;
        w.epoch_predictions = 0;
        for (std::int64_t s = slices[static_cast<std::size_t>(t)]; s < slices[static_cast<std::size_t>(t) + 1]; ++s) {
          core::Rng rng = base.split(static_cast<std::uint64_t>(epoch), static_cast<std::uint64_t>(s));
          const auto sentence = corpus.sentence(s);
          w.kept.clear();
          for (const auto word : sentence)
            if (subsampler.keep(word, rng)) w.kept.push_back(word);
          std::int64_t predictions = 0;
          const double loss = kernel(params, w.kept, w.alpha, rng, w.scratch, predictions);
          w.epoch_loss += loss;
          w.epoch_predictions += predictions;
          w.window_loss += loss;
          w.window_predictions += predictions;
          w.pending += static_cast<std::int64_t>(sentence.size());
          if (w.pending >= kSyncWords) {
            w.alpha = alpha_at(words_done.fetch_add(w.pending, std::memory_order_relaxed) + w.pending);
            bar.update(w.pending, fmt::format("loss {:.4f} lr {:.5f}",
                                              w.window_predictions ? w.window_loss / static_cast<double>(w.window_predictions) : 0.0,
                                              w.alpha));
            w.pending = 0;
            w.window_loss = 0;
            w.window_predictions = 0;
          }
        }
      });
      words_done.fetch_add(w.pending, std::memory_order_relaxed);
      bar.update(w.pending);
      w.pending = 0;
      // The step boundary: every worker has finished the epoch; the hook may save or stop.
#pragma omp barrier
#pragma omp single
      {
        go_on = epoch + 1 < options.epochs && !carrier.failed();
        if (go_on && steps.at_boundary) carrier.run([&] { go_on = !steps.at_boundary(core::CheckpointId{epoch + 1}); });
        go_on = go_on && !carrier.failed();
      }
      w.alpha = alpha_at(words_done.load(std::memory_order_relaxed));
    }
  }
  carrier.rethrow();

  SgnsStats stats;
  stats.seconds = timer.seconds();
  stats.words = words_done.load() - words_before;
  stats.words_per_second = stats.seconds > 0 ? static_cast<double>(stats.words) / stats.seconds : 0.0;
  double loss = 0;
  std::int64_t predictions = 0;
  for (const WorkerState& w : workers) {
    loss += w.epoch_loss;
    predictions += w.epoch_predictions;
  }
  stats.loss = predictions ? loss / static_cast<double>(predictions) : 0.0;
  bar.finish(fmt::format("loss {:.4f}", stats.loss));
  return stats;
}

}  // namespace loom::embed
