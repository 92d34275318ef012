// The statistics of one epoch of mini-batch training, with named fields. EpochTotals is what this
// rank counts while it trains (loss, training scores, seconds per phase, rows and bytes fetched);
// EpochWatch snapshots the counters that run across epochs (communication, prefetch decisions)
// when an epoch starts; summarize_epoch() combines both over the ranks (collective) into an
// EpochSummary, whose JSON form is the epoch's `--metrics` record. A run stopped mid-epoch keeps
// each rank's EpochTotals in its checkpoint as numbers (pack_totals / unpack_totals), so that the
// resumed epoch's record sums the same steps in the same order.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "loom/comm/communicator.hpp"
#include "loom/feature/remote_fetcher.hpp"
#include "loom/loader/batch_builder.hpp"
#include "loom/loader/prefetch_control.hpp"
#include "loom/scores/node_scores.hpp"

namespace loom::loader {

// copy: the producer queueing a batch's copies to the device (0 on CPU).
struct PhaseSeconds {
  double sample = 0, fetch = 0, copy = 0, wait = 0, compute = 0, allreduce = 0;
};

struct EpochTotals {
  double loss_sum = 0;        // over this rank's steps
  scores::ScoreCounts train;  // training predictions
  PhaseSeconds phases;        // this rank's time per phase (sample and fetch on the producer thread)
  feature::FetchStats fetched;
  std::int64_t sampled_edges = 0;
  double earlier_seconds = 0;  // wall time of this epoch's steps in the run before a resume
};
// Adds what preparing `batch` took (and the `wait` for it) to an epoch's totals.
void count_batch(const loader::PreparedBatch& batch, double wait, EpochTotals& totals);
std::vector<double> pack_totals(const EpochTotals& totals);
// Throws Error naming `where` unless `values` came from pack_totals().
EpochTotals unpack_totals(std::span<const double> values, const std::string& where);

// Counters that run across epochs, read when an epoch starts.
struct EpochWatch {
  comm::CommStats comm;
  loader::PrefetchCounters decisions;
  std::int64_t rows_admitted = 0;
};
EpochWatch watch_epoch(const comm::Communicator& world, const loader::PrefetchControl* control,
                       const feature::PrefetchBuffer* buffer);

struct PrefetchEpoch {
  std::int64_t hits = 0, lookups = 0, rows_in = 0, decisions = 0, evictions = 0, fallbacks = 0, rows_admitted = 0;
  double hit_rate() const { return lookups > 0 ? static_cast<double>(hits) / static_cast<double>(lookups) : 0.0; }
};

// What the trainer knows of an epoch when it ends, besides the ranks' counters.
struct EpochFacts {
  int epoch = 0;  // 1-based
  double seconds = 0;
  std::int64_t steps = 0;
  double lr = 0;
  bool changed_conditions = false;           // --change-epoch has come
  bool pipelined = false;                    // batches were prepared ahead (--pipeline-depth > 0)
  std::optional<scores::ScoreKind> scoring;  // how training predictions are scored; none: they are not (links)
};

// One epoch over all ranks: sums of rows and bytes, loss and score over every rank's steps.
struct EpochSummary {
  EpochFacts facts;
  double loss = 0;                      // mean over all ranks' steps
  double train_score = 0;               // of the training predictions, by facts.scoring
  PhaseSeconds phases;                  // this rank's
  double pipeline_hidden_fraction = 0;  // share of sample + fetch time the pipeline hid
  std::int64_t rows_local = 0, rows_device = 0, rows_remote = 0, rows_cached = 0, feature_bytes = 0, sampled_edges = 0;
  std::optional<PrefetchEpoch> prefetch;  // with a prefetch controller
  comm::GlobalCommStats comm;
};

// Collective over `world`. `since` was taken when the epoch started; control and buffer may be null.
EpochSummary summarize_epoch(const EpochFacts& facts, const EpochTotals& totals, const EpochWatch& since,
                             const comm::Communicator& world, const loader::PrefetchControl* control,
                             const feature::PrefetchBuffer* buffer);

// The `--metrics` record; the training score is named train_<its ScoreKind's name>.
nlohmann::json epoch_record(const EpochSummary& summary);

}  // namespace loom::loader
