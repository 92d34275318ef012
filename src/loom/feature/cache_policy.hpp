// Static cache policies (SALIENT++): each ranks the vertices a rank might cache by a score,
// higher first; a rank caches the `capacity` highest-scoring vertices it does not own (ties by
// id; a vertex scoring 0 is never cached). Policies, one file each:
//   none        caches nothing
//   vip         vertex inclusion probability of the rank's own mini-batches (vip.hpp)
//   simulation  inclusion counts over `simulation_epochs` sampled epochs with their own seed
//   degree      highest degree first
//   halo        the 1-hop halo of the rank's training nodes, by degree (nothing beyond it)
//   random      a seeded random order
//   oracle      inclusion counts of the very epochs being measured (`measured`): the bound no
//               static cache can beat
// The CLI parses a policy's name into CachePolicy once (kCachePolicyNames); below it, policies are
// values.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "loom/core/enum_names.hpp"
#include "loom/feature/inclusion_counts.hpp"
#include "loom/partition/partition_book.hpp"
#include "loom/sample/neighbor_sampler.hpp"

namespace loom::feature {

struct CacheContext {
  const graph::Csr* graph = nullptr;  // whole graph, global ids, symmetric
  partition::PartitionBook book;
  int rank = 0;
  std::span<const std::int64_t> train_ids;  // this rank's, global ids
  sample::Fanouts fanouts{15, 10, 5};       // fanouts[0] is the hop from the seeds
  std::int64_t batch_size = 1024;
  std::int64_t steps = 0;  // steps per epoch (the same on every rank)
  EpochRange measured;     // the epochs training runs (oracle)
  int simulation_epochs = 2;
};

// Policies in the order they are listed to users.
enum class CachePolicy { kNone, kVip, kSimulation, kDegree, kHalo, kRandom, kOracle };
inline constexpr core::EnumNames<CachePolicy, 7> kCachePolicyNames{{{"none", CachePolicy::kNone},
                                                                    {"vip", CachePolicy::kVip},
                                                                    {"simulation", CachePolicy::kSimulation},
                                                                    {"degree", CachePolicy::kDegree},
                                                                    {"halo", CachePolicy::kHalo},
                                                                    {"random", CachePolicy::kRandom},
                                                                    {"oracle", CachePolicy::kOracle}}};

// One score per global vertex (size num_nodes), higher = cache first.
std::vector<double> cache_scores(CachePolicy policy, const CacheContext& context);

// The vertices `rank` caches: at most `capacity` of those it does not own, by score (desc) then id,
// skipping scores <= 0; returned sorted by score rank (hottest first).
std::vector<std::int64_t> select_cache(std::span<const double> scores, const partition::PartitionBook& book, int rank,
                                       std::int64_t capacity);

// Cache rows per rank for alpha: alpha * N / K, at most the N - N_rank vertices the rank does not own.
std::int64_t cache_capacity(double alpha, const partition::PartitionBook& book, int rank);

namespace policies {
std::vector<double> vip(const CacheContext& context);
std::vector<double> simulation(const CacheContext& context);
std::vector<double> oracle(const CacheContext& context);
std::vector<double> degree(const CacheContext& context);
std::vector<double> halo(const CacheContext& context);
std::vector<double> random(const CacheContext& context);
}  // namespace policies

}  // namespace loom::feature
