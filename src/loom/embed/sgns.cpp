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

void check(const SgnsOptions& o) {
  LOOM_CHECK_ARG(o.dim >= 1 && o.dim <= 100000, "--dim", "must be in [1, 100000], got {}", o.dim);
  LOOM_CHECK_ARG(o.window >= 1 && o.window <= 1000, "--window", "must be in [1, 1000], got {}", o.window);
  LOOM_CHECK_ARG(o.negative >= 1 && o.negative <= 1000, "--negative", "must be in [1, 1000], got {}", o.negative);
  LOOM_CHECK_ARG(o.epochs >= 1, "--epochs", "must be >= 1, got {}", o.epochs);
  LOOM_CHECK_ARG(o.alpha > 0 && std::isfinite(o.alpha), "--alpha", "must be > 0, got {}", o.alpha);
  LOOM_CHECK_ARG(o.threads >= 1, "--threads", "must be >= 1, got {}", o.threads);
  core::check_thread_count(o.threads, "--threads");
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

using Kernel = double (*)(const detail::KernelParams&, std::span<const std::int32_t>, float, core::Rng&,
                          detail::KernelScratch&, std::int64_t&);

Kernel choose_kernel(const SgnsOptions& options) {
  if (options.cbow) return detail::cbow;
  switch (options.kernel) {
    case SgnsKernel::kHogwild: return detail::sg_hogwild;
    case SgnsKernel::kShared: return detail::sg_shared;
    case SgnsKernel::kBatched: return detail::sg_batched;
  }
  return detail::sg_batched;
}

// The learning rate: alpha decays linearly over the words of the whole schedule (this call's
// share [schedule_begin, schedule_end) of it), down to alpha * min_alpha_fraction.
struct AlphaSchedule {
  const SgnsOptions& options;
  std::int64_t words = 0;  // every epoch's words
  float at(std::int64_t done) const {
    const double left = 1.0 - (options.schedule_begin + (options.schedule_end - options.schedule_begin) *
                                                            static_cast<double>(done) / static_cast<double>(words + 1));
    return static_cast<float>(options.alpha * std::max(left, options.min_alpha_fraction));
  }
};

// What every worker reads while training, and the shared word count it advances.
struct SharedWork {
  const Corpus& corpus;
  const Subsampler& subsampler;
  const detail::KernelParams& params;
  Kernel kernel;
  core::Rng base;
  AlphaSchedule alpha;
  std::atomic<std::int64_t>& words_done;
  core::ProgressBar& bar;
};

// One worker's sentences [first, last) of `epoch`, each with its own (epoch, sentence) random stream.
void train_sentences(const SharedWork& work, WorkerState& w, int epoch, std::int64_t first, std::int64_t last) {
  for (std::int64_t s = first; s < last; ++s) {
    core::Rng rng = work.base.split(static_cast<std::uint64_t>(epoch), static_cast<std::uint64_t>(s));
    const auto sentence = work.corpus.sentence(s);
    w.kept.clear();
    for (const auto word : sentence)
      if (work.subsampler.keep(word, rng)) w.kept.push_back(word);
    std::int64_t predictions = 0;
    const double loss = work.kernel(work.params, w.kept, w.alpha, rng, w.scratch, predictions);
    w.epoch_loss += loss;
    w.epoch_predictions += predictions;
    w.window_loss += loss;
    w.window_predictions += predictions;
    w.pending += static_cast<std::int64_t>(sentence.size());
    if (w.pending >= kSyncWords) {
      w.alpha = work.alpha.at(work.words_done.fetch_add(w.pending, std::memory_order_relaxed) + w.pending);
      work.bar.update(
          w.pending,
          fmt::format("loss {:.4f} lr {:.5f}",
                      w.window_predictions ? w.window_loss / static_cast<double>(w.window_predictions) : 0.0, w.alpha));
      w.pending = 0;
      w.window_loss = 0;
      w.window_predictions = 0;
    }
  }
}

// Mean loss per prediction over the workers' last epoch.
double last_epoch_loss(const std::vector<WorkerState>& workers) {
  double loss = 0;
  std::int64_t predictions = 0;
  for (const WorkerState& w : workers) {
    loss += w.epoch_loss;
    predictions += w.epoch_predictions;
  }
  return predictions ? loss / static_cast<double>(predictions) : 0.0;
}

// At the boundary after step `index` (of `total_steps`, `per_epoch` an epoch): whether training
// goes on, after the hook (which may save or stop) has seen the checkpoint reached.
bool after_step(std::int64_t index, std::int64_t total_steps, std::int64_t per_epoch, const SgnsSteps& steps,
                core::ExceptionCarrier& carrier) {
  bool go_on = index + 1 < total_steps && !carrier.failed();
  const auto epoch = static_cast<int>(index / per_epoch);
  const std::int64_t step = index % per_epoch;
  const format::CheckpointId reached =
      step + 1 == per_epoch ? format::CheckpointId{epoch + 1} : format::CheckpointId{epoch, static_cast<int>(step + 1)};
  if (go_on && steps.at_boundary) carrier.run([&] { go_on = !steps.at_boundary(reached); });
  return go_on && !carrier.failed();
}

// One worker per thread, each starting at learning rate `alpha`.
std::vector<WorkerState> make_workers(const SgnsOptions& options, std::int64_t stride, int threads, float alpha) {
  std::vector<WorkerState> workers;
  workers.reserve(static_cast<std::size_t>(threads));
  for (int t = 0; t < threads; ++t) workers.emplace_back(options, stride).alpha = alpha;
  return workers;
}

// The run's statistics (`words` trained in `seconds`), the progress bar closed with its loss.
SgnsStats finish_stats(double seconds, std::int64_t words, const std::vector<WorkerState>& workers,
                       core::ProgressBar& bar) {
  SgnsStats stats;
  stats.seconds = seconds;
  stats.words = words;
  stats.words_per_second = seconds > 0 ? static_cast<double>(words) / seconds : 0.0;
  stats.loss = last_epoch_loss(workers);
  bar.finish(fmt::format("loss {:.4f}", stats.loss));
  return stats;
}

// The inputs train_sgns() takes agree: a vocabulary, a corpus of its words, a model of its size
// and a start within the epochs.
void check_inputs(const Corpus& corpus, std::span<const std::int64_t> counts, const SgnsOptions& options,
                  const SgnsModel& model, const SgnsSteps& steps) {
  check(options);
  const auto vocab_size = static_cast<std::int64_t>(counts.size());
  LOOM_CHECK(vocab_size > 0, "train: empty vocabulary");
  LOOM_CHECK(corpus.num_tokens() > 0, "train: empty corpus");
  LOOM_CHECK(model.input.rows() == vocab_size && model.output.rows() == vocab_size && model.input.dim() == options.dim,
             "train: model is {} x {}, expected {} x {}", model.input.rows(), model.input.dim(), vocab_size,
             options.dim);
  for (const auto token : corpus.tokens)
    LOOM_CHECK(token >= 0 && token < vocab_size, "train: corpus token {} outside the vocabulary [0, {})", token,
               vocab_size);
  LOOM_CHECK(steps.start.steps >= 0 && steps.start.steps < steps_per_epoch(corpus) && steps.start.epochs >= 0 &&
                 steps.start.epochs < options.epochs,
             "train: cannot start at {} of {} epochs of {} steps", steps.start.name(), options.epochs,
             steps_per_epoch(corpus));
}

// Thread t's sentences of step `step`: the step-th of steps_per_epoch parts of its slice.
std::pair<std::int64_t, std::int64_t> step_sentences(const std::vector<std::int64_t>& slices, int t, std::int64_t step,
                                                     std::int64_t steps) {
  const std::int64_t lo = slices[static_cast<std::size_t>(t)], hi = slices[static_cast<std::size_t>(t) + 1];
  return {lo + (hi - lo) * step / steps, lo + (hi - lo) * (step + 1) / steps};
}

// The corpus words of the first `step` steps of an epoch, over every thread's slice.
std::int64_t words_before_step(const Corpus& corpus, const std::vector<std::int64_t>& slices, std::int64_t step,
                               std::int64_t steps) {
  std::int64_t words = 0;
  for (std::size_t t = 0; t + 1 < slices.size(); ++t) {
    const auto [lo, end] = step_sentences(slices, static_cast<int>(t), 0, 1);
    const std::int64_t until = lo + (end - lo) * step / steps;
    words += corpus.offsets[static_cast<std::size_t>(until)] - corpus.offsets[static_cast<std::size_t>(lo)];
  }
  return words;
}

detail::KernelParams kernel_params(SgnsModel& model, const SgnsOptions& options, const NegativeSampler& negatives) {
  detail::KernelParams params;
  params.input = model.input.data();
  params.output = model.output.data();
  params.stride = model.input.stride();
  params.window = options.window;
  params.negative = options.negative;
  params.negatives = &negatives;
  return params;
}

// Each thread owns a slice of the sentences, so the team must have every thread asked for: no
// more than OMP_THREAD_LIMIT allows (a batch scheduler's), whatever --threads says.
int team_size(const SgnsOptions& options, const Corpus& corpus) {
  return static_cast<int>(std::min<std::int64_t>(
      {options.threads, std::max<std::int64_t>(1, corpus.num_sentences()), omp_get_thread_limit()}));
}

}  // namespace

std::int64_t steps_per_epoch(const Corpus& corpus) {
  return std::max<std::int64_t>(1, (corpus.num_tokens() + kStepWords - 1) / kStepWords);
}

SgnsStats train_sgns(const Corpus& corpus, std::span<const std::int64_t> counts, const SgnsOptions& options,
                     SgnsModel& model, const SgnsSteps& steps) {
  check_inputs(corpus, counts, options, model, steps);
  const std::int64_t per_epoch = steps_per_epoch(corpus);
  const std::int64_t first_step = steps.start.epochs * per_epoch + steps.start.steps,
                     total_steps = options.epochs * per_epoch;

  const Subsampler subsampler(counts, options.sample);
  const NegativeSampler negatives(counts);
  const detail::KernelParams params = kernel_params(model, options, negatives);
  const int threads = team_size(options, corpus);
  const auto slices = thread_slices(corpus, threads);
  const AlphaSchedule alpha{options, options.epochs * corpus.num_tokens()};
  std::atomic<std::int64_t> words_done{steps.start.epochs * corpus.num_tokens() +
                                       words_before_step(corpus, slices, steps.start.steps, per_epoch)};
  const std::int64_t words_before = words_done.load();
  std::vector<WorkerState> workers = make_workers(options, params.stride, threads, alpha.at(words_before));
  core::ProgressBar bar(options.label, alpha.words, "words");
  bar.set_quiet(!options.progress);
  bar.update(words_before);
  const SharedWork work{corpus, subsampler, params, choose_kernel(options), core::Rng(options.seed),
                        alpha,  words_done, bar};
  core::ExceptionCarrier carrier;
  core::Timer timer;
  bool go_on = true;  // written by one thread between barriers, read by all after them

#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num();
    WorkerState& w = workers[static_cast<std::size_t>(t)];
    for (std::int64_t index = first_step; go_on; ++index) {
      const auto epoch = static_cast<int>(index / per_epoch);
      const std::int64_t step = index % per_epoch;
      if (step == 0 || index == first_step) w.epoch_loss = 0, w.epoch_predictions = 0;
      carrier.run([&] {
        LOOM_CHECK(omp_get_num_threads() == threads, "train: OpenMP started {} of {} threads", omp_get_num_threads(),
                   threads);
        const auto [first, last] = step_sentences(slices, t, step, per_epoch);
        train_sentences(work, w, epoch, first, last);
      });
      words_done.fetch_add(w.pending, std::memory_order_relaxed);
      bar.update(w.pending);
      w.pending = 0;
      // The step boundary: every worker has finished the step; the hook may save or stop.
#pragma omp barrier
#pragma omp single
      go_on = after_step(index, total_steps, per_epoch, steps, carrier);
      w.alpha = alpha.at(words_done.load(std::memory_order_relaxed));
    }
  }
  carrier.rethrow();

  return finish_stats(timer.seconds(), words_done.load() - words_before, workers, bar);
}

}  // namespace loom::embed
