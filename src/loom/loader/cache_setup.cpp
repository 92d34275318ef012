#include "loom/loader/cache_setup.hpp"

#include "loom/core/log.hpp"
#include "loom/core/memory.hpp"
#include "loom/core/timer.hpp"

namespace loom::loader {

feature::CacheContext cache_context(const TrainingBatches& batches, const TrainingData& data, int rank) {
  feature::CacheContext context;
  context.graph = &data.graph();
  context.book = data.book;
  context.rank = rank;
  context.train_ids = data.train_ids;
  context.fanouts = batches.fanouts;
  context.batch_size = batches.batch_size;
  context.measured = {batches.seed, 0, 0};
  return context;
}

std::int64_t cache_row_bytes(const feature::RowTable& own, format::DType storage) {
  constexpr std::int64_t kSlotBytes = 24;  // the id -> row map's entry
  if (!own.is_sparse()) return own.dim() * static_cast<std::int64_t>(format::dtype_size(storage)) + kSlotBytes;
  return 8 + own.entries_per_row() * 8 + kSlotBytes;
}

std::int64_t cache_rows(const StaticCacheOptions& options, const TrainingData& data, int rank) {
  if (options.memory_bytes == 0) return feature::cache_capacity(options.alpha, data.book, rank);
  const std::int64_t remote = data.book.num_nodes() - data.book.range(rank).size();
  return std::min(remote, options.memory_bytes / cache_row_bytes(data.features, options.dtype));
}

feature::StaticCache build_static_cache(const StaticCacheOptions& options, const TrainingBatches& batches,
                                        const TrainingData& data, std::int64_t steps, int start_epoch, int epochs,
                                        const feature::RemoteFetcher& fetcher, comm::Communicator& world,
                                        nlohmann::json& record) {
  if (options.policy == feature::CachePolicy::kNone) return {};
  const std::string policy = core::enum_name(feature::kCachePolicyNames, options.policy);
  if (world.size() == 1) {
    spdlog::warn("--cache {}: one rank owns every row, so there is nothing to cache", policy);
    return {};
  }
  core::Timer ranking;
  std::vector<std::int64_t> ids;
  world.agree_on([&] {
    feature::CacheContext context = cache_context(batches, data, world.rank());
    context.steps = steps;
    context.measured = {batches.seed, start_epoch, epochs - start_epoch};
    context.simulation_epochs = options.simulation_epochs;
    const auto scores = feature::cache_scores(options.policy, context);
    ids = feature::select_cache(scores, data.book, world.rank(), cache_rows(options, data, world.rank()));
  });
  const double ranking_seconds = ranking.seconds();
  feature::StaticCache cache;
  world.agree_on([&] { cache = feature::StaticCache::fill(fetcher, std::move(ids), options.dtype); });
  std::int64_t rows = cache.size(), bytes = cache.rows().bytes(), fill_bytes = cache.fill_stats().bytes;
  world.sum_fields(comm::Channel::control, rows, bytes, fill_bytes);
  record = {{"event", "cache"},
            {"policy", policy},
            {"alpha", options.alpha},
            {"memory_bytes", options.memory_bytes},
            {"rows", rows},
            {"bytes", bytes},
            {"fill_bytes_received", fill_bytes},
            {"ranking_seconds", ranking_seconds},
            {"fill_seconds", cache.fill_stats().seconds}};
  if (world.rank() == 0)
    spdlog::info(
        "static cache '{}' {}: {} rows over {} ranks ({}), ranked in {:.2f}s, filled in {:.2f}s", policy,
        options.memory_bytes > 0 ? "of " + core::human_bytes(static_cast<double>(options.memory_bytes)) + " a rank"
                                 : fmt::format("alpha {}", options.alpha),
        rows, world.size(), core::human_bytes(static_cast<double>(bytes)), ranking_seconds, cache.fill_stats().seconds);
  return cache;
}

}  // namespace loom::loader
