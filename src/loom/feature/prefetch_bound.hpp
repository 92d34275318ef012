// `loom analyze prefetch`: how many remote rows a prefetch buffer of F x halo rows per rank could
// save at best, whatever its controller. For every part k it samples the very minibatches a trainer
// on rank k takes (same plan and seeds as `loom train`) and replays their remote input rows through
//  - no buffer: every remote input row is fetched;
//  - the best static buffer: the C remote rows used most often in these epochs (clairvoyant);
//  - Belady's MIN: start with the C rows used first, and after each minibatch keep the C rows (held
//    or just fetched) whose next use comes soonest. With unit cost per fetched row, free insertion
//    of a row already fetched and a free initial fill (both as in the trainer), MIN fetches the
//    fewest rows of any replacement policy: the bound no controller can beat.
// Fetching a row ahead of its use (a controller's replacements) costs the same one row as
// fetching it on demand, so no prefetching policy beats the bound either.
// Beside the bounds, one online policy: lookahead (the buffer starts with the rows VIP ranks
// hottest, every fetched row may stay, and it keeps first the rows the next `lookahead`
// minibatches use, soonest first, then the rows used most often so far): what a trainer whose
// pipeline samples `lookahead` minibatches ahead of their fetch could do without clairvoyance.
// Capacity C = floor(F x halo size), as the trainer's buffer (PrefetchBuffer::capacity_for).
// Results are remote rows per epoch summed over parts.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "loom/sample/fanouts.hpp"

namespace loom::feature {

struct PrefetchBoundOptions {
  std::string store;  // partitioned store
  sample::Fanouts fanouts{15, 10, 5};
  std::int64_t batch_size = 1024;
  std::vector<double> fractions = {0.05, 0.25};
  int epochs = 1;
  std::uint64_t seed = 0;  // the training run's seed
  int lookahead = 4;       // minibatches the online policy sees ahead (0 = none)
};

struct PrefetchBound {
  std::string store;
  int parts = 0;
  std::vector<double> fractions;
  std::vector<std::int64_t> capacity;  // buffer rows, all ranks, one per fraction
  std::int64_t halo = 0;               // halo vertices, all ranks
  double no_buffer = 0;                // remote rows per epoch
  std::vector<double> best_static;     // per fraction
  std::vector<double> belady;          // per fraction
  int lookahead = 0;
  std::vector<double> online;  // per fraction: the lookahead policy

  nlohmann::json to_json() const;
  std::string table() const;
};

// Rows fetched by Belady's MIN over `accesses` (each minibatch's distinct remote ids) with a
// buffer of `capacity` rows that starts holding the rows used first.
std::int64_t belady_fetches(std::span<const std::vector<std::int64_t>> accesses, std::int64_t capacity);

// Rows fetched by the lookahead policy seeing `window` minibatches ahead, starting with the first
// `capacity` rows of `initial`.
std::int64_t lookahead_fetches(std::span<const std::vector<std::int64_t>> accesses, std::int64_t capacity,
                               std::int64_t window, std::span<const std::int64_t> initial);

// Throws Error naming the argument for a fraction outside (0, 1], bad fanouts, batch size or epochs.
PrefetchBound analyze_prefetch_bound(const PrefetchBoundOptions& options);

}  // namespace loom::feature
