// Skip-gram (or CBOW) with negative sampling over a Corpus: the trainer behind `loom embed text`
// (and DeepWalk/node2vec, whose walks are corpora of node ids).
//
// train_sgns() runs `epochs` passes. Each of `threads` workers owns a contiguous slice of the
// sentences (balanced by tokens) and updates the shared weights without locks (Hogwild, as
// word2vec.c's TrainModelThread: the races on rows are deliberate and harmless in practice). The
// learning rate decays linearly from alpha to alpha * min_alpha_fraction over all epochs, driven by a
// relaxed atomic count of words done. Random draws (subsampling, window shrink, negatives) are seeded
// per (epoch, sentence), so with threads == 1 a seed gives bit-identical weights. Epochs are its
// steps: at each boundary the workers wait for each other, and SgnsSteps' hook may save a
// checkpoint or stop; a run resumed from a boundary continues as the uninterrupted run would.
//
// Kernels: kHogwild is word2vec.c's per-pair update (fresh negatives for every (centre, context)
// pair). kShared keeps word2vec.c's sequential per-pair updates but draws one set of negatives per
// centre word, shared by its window: the window's output rows stay in this core's cache, so
// threads stop fighting over rows (on PPI, 2 threads: 1.7 s vs hogwild's 6.5 s at the same
// macro-F1). kBatched also shares the negatives (pWord2Vec) and turns the window into small matrix
// products [contexts] x [centre; negatives]^T computed on unchanged weights, then applied.
// CBOW (one averaged input per centre) ignores the kernel.
// The input matrix (row i = vocabulary id i) is the embedding.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>

#include "loom/format/checkpoint_dir.hpp"
#include "loom/core/enum_names.hpp"
#include "loom/embed/corpus.hpp"
#include "loom/embed/matrix.hpp"

namespace loom::embed {

enum class SgnsKernel { kHogwild, kShared, kBatched };
inline constexpr core::EnumNames<SgnsKernel, 3> kSgnsKernelNames{
    {{"hogwild", SgnsKernel::kHogwild}, {"shared", SgnsKernel::kShared}, {"batched", SgnsKernel::kBatched}}};
inline std::string sgns_kernel_name(SgnsKernel kernel) { return core::enum_name(kSgnsKernelNames, kernel); }

struct SgnsOptions {
  std::int64_t dim = 100;
  int window = 5;        // max distance; each centre uses a uniform window in [1, window]
  int negative = 5;      // negative samples per prediction
  double sample = 1e-4;  // subsampling rate (<= 0: off)
  int epochs = 5;
  double alpha = 0.025;  // starting learning rate
  // Input rows start uniform in [-init_range / dim, init_range / dim): 0.5 is word2vec.c's (and
  // gensim 3's) range, 1.0 gensim 4's, which node2vec's reference (gensim) trains with.
  double init_range = 0.5;
  double min_alpha_fraction = 1e-4;  // floor: alpha * this
  int threads = 2;
  SgnsKernel kernel = SgnsKernel::kBatched;
  bool cbow = false;
  std::uint64_t seed = 1;
  // The share [schedule_begin, schedule_end) of a longer training that this call covers, so that
  // the learning rate decays over the whole (distributed training calls this once per round).
  double schedule_begin = 0, schedule_end = 1;
  bool progress = true;  // draw a core::ProgressBar on stderr
  std::string label = "train";
};

// Throws Error::in_argument naming the CLI option (--dim, --window, --negative, --epochs, --alpha,
// --threads, --sample) for out-of-range values.
void check(const SgnsOptions& options);

struct SgnsModel {
  EmbeddingMatrix input;   // the word/node vectors
  EmbeddingMatrix output;  // context (negative-sampling) weights
};

// word2vec.c's initialisation: input uniform in [-init_range/dim, init_range/dim) (seeded per block of
// rows by options.seed), output zero; options.dim columns.
SgnsModel init_sgns_model(std::int64_t rows, const SgnsOptions& options);

// Resuming and stopping: where training starts and what happens at each step boundary (a block of
// about kStepWords corpus words of train_sgns(): each thread's share of the epoch cut into
// steps_per_epoch() parts, so that a signal stops it within about a second; a synchronisation round
// of train_sgns_synced()).
struct SgnsSteps {
  format::CheckpointId start;  // the steps already done (steps of epoch start.epochs)
  // Called at every step boundary but the last (on every rank, collectively; the weights are the
  // same on every rank there) with the position reached; returns true to stop training there.
  std::function<bool(format::CheckpointId reached)> at_boundary;
};

struct SgnsStats {
  std::int64_t words = 0;  // corpus tokens processed in this call (before subsampling)
  double seconds = 0;      // training time
  double words_per_second = 0;
  double loss = 0;     // mean negative-sampling loss per prediction, last epoch trained
  int stopped_by = 0;  // the signal that stopped training at a step boundary, or 0
};

inline constexpr std::int64_t kStepWords = std::int64_t{1} << 20;
// The steps of one epoch of train_sgns() over `corpus`: its words in blocks of kStepWords, at least 1.
std::int64_t steps_per_epoch(const Corpus& corpus);

// `counts` are the vocabulary counts (size = model rows): they drive subsampling and the
// negative distribution. Corpus tokens must be in [0, counts.size()).
SgnsStats train_sgns(const Corpus& corpus, std::span<const std::int64_t> counts, const SgnsOptions& options,
                     SgnsModel& model, const SgnsSteps& steps = {});

}  // namespace loom::embed
