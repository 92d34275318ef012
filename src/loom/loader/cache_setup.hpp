// The static feature cache of `loom train --cache NAME --alpha A` (SALIENT++): each rank ranks
// vertices by the policy for its own training nodes and the run's fanouts, batch size and
// seeds, keeps the alpha * N / K best it does not own (or as many as fit in --cache-memory
// bytes), and fills them in one collective
// exchange. Collective over `world` and the fetcher's communicator; errors (unknown policy, a
// cache too big for memory) are raised on every rank together. `record` receives a JSON summary
// (policy, alpha, rows and bytes over all ranks, ranking and fill seconds).
#pragma once

#include <cstdint>
#include <span>

#include <nlohmann/json.hpp>

#include "loom/comm/communicator.hpp"
#include "loom/feature/cache_policy.hpp"
#include "loom/feature/static_cache.hpp"
#include "loom/loader/loader_options.hpp"
#include "loom/loader/training_data.hpp"

namespace loom::loader {

// What a ranking of rows by their expected use (the static cache's policies, the device tier, the
// prefetch buffer's first fill) needs to know of the training batches.
struct TrainingBatches {
  sample::Fanouts fanouts;
  std::int64_t batch_size = 0;
  std::uint64_t seed = 0;  // the run's
};

// What a cache policy needs to know about this rank's training: graph, book, its training ids and
// the batches (measured epochs: none; set them for the oracle).
feature::CacheContext cache_context(const TrainingBatches& batches, const TrainingData& data, int rank);

// `steps` per epoch; the run's epochs from `start_epoch` to `epochs` are what the oracle measures.
// The bytes one cached row takes: dense, its width in `storage`; from a sparse store, its entries
// (8 bytes each as the cache holds them, and its offset) by `own`'s mean; plus its slot in the
// cache's map.
std::int64_t cache_row_bytes(const feature::RowTable& own, format::DType storage);
// Cache rows for `rank`: alpha * N / K, or as many as fit in memory_bytes (--cache-memory), at most
// the rows the rank does not own.
std::int64_t cache_rows(const StaticCacheOptions& options, const TrainingData& data, int rank);

feature::StaticCache build_static_cache(const StaticCacheOptions& options, const TrainingBatches& batches,
                                        const TrainingData& data, std::int64_t steps, int start_epoch, int epochs,
                                        const feature::RemoteFetcher& fetcher, comm::Communicator& world,
                                        nlohmann::json& record);

}  // namespace loom::loader
