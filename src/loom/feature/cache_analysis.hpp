// `loom analyze cache`: how many feature rows each static cache policy leaves to fetch, without
// training. For every part k of a partitioned store it samples the `epochs` epochs a trainer on
// rank k would run (same plan, same seeds), counts how often each vertex is an input node, ranks
// the vertices by each policy and, for each alpha, sums the counts of the remote vertices the
// cache of alpha * N / K rows leaves out. Results are remote rows per epoch summed over parts,
// and the bytes they cross the network as (dense rows: dim x 4; sparse rows: their entries).
// The oracle ranks by these very counts, so it is the bound for any static cache.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "loom/feature/cache_policy.hpp"
#include "loom/sample/fanouts.hpp"

namespace loom::feature {

struct CacheAnalysisOptions {
  std::string store;  // partitioned store (or a graph store: one part, nothing remote)
  sample::Fanouts fanouts{15, 10, 5};
  std::int64_t batch_size = 1024;
  std::vector<double> alphas = {0, 0.01, 0.05, 0.1, 0.2, 0.5, 1};
  std::vector<CachePolicy> policies = {CachePolicy::kVip,  CachePolicy::kSimulation, CachePolicy::kDegree,
                                       CachePolicy::kHalo, CachePolicy::kRandom,     CachePolicy::kOracle};
  int epochs = 5;             // measured epochs
  int simulation_epochs = 0;  // epochs the simulation policy samples (0 = `epochs`)
  std::uint64_t seed = 0;     // the training run's seed
};

struct PolicyResult {
  CachePolicy policy = CachePolicy::kNone;
  std::vector<double> remote_rows;   // per epoch, summed over parts, one per alpha
  std::vector<double> remote_bytes;  // their bytes on the float32 wire (a sparse row: its entries)
  double seconds = 0;                // time to rank the vertices (all parts)
};

struct CacheAnalysis {
  std::string store;
  int parts = 0;
  std::int64_t nodes = 0;
  std::vector<double> alphas;
  std::vector<std::int64_t> cache_rows;  // per rank, one per alpha (rank 0's capacity)
  double input_rows = 0;                 // input rows per epoch, all parts (local + remote)
  double no_cache_remote_rows = 0;       // remote rows per epoch without a cache
  double no_cache_remote_bytes = 0;      // and their bytes
  double sampling_seconds = 0;           // sampling the measured epochs
  std::vector<PolicyResult> results;

  nlohmann::json to_json() const;
  std::string table() const;
};

// Throws Error naming the argument for alpha < 0, no policy, bad fanouts or epochs.
CacheAnalysis analyze_cache(const CacheAnalysisOptions& options);

}  // namespace loom::feature
