#include "loom/train/minibatch/cache_setup.hpp"

#include "loom/core/log.hpp"
#include "loom/core/memory.hpp"
#include "loom/core/timer.hpp"

namespace loom::train {

feature::CacheContext cache_context(const MinibatchOptions& options, const TrainingData& data,
                                    std::span<const std::int32_t> fanouts, int rank) {
  feature::CacheContext context;
  context.graph = &data.graph();
  context.book = data.book;
  context.rank = rank;
  context.train_ids = data.train_ids;
  context.fanouts.assign(fanouts.begin(), fanouts.end());
  context.batch_size = options.batch_size;
  context.measured = {options.run.seed, 0, 0};
  return context;
}

feature::StaticCache build_static_cache(const MinibatchOptions& options, const TrainingData& data,
                                        std::span<const std::int32_t> fanouts, std::int64_t steps, int start_epoch,
                                        const feature::RemoteFetcher& fetcher, comm::Communicator& world,
                                        nlohmann::json& record) {
  if (options.cache == feature::CachePolicy::kNone) return {};
  const std::string policy = core::enum_name(feature::kCachePolicyNames, options.cache);
  if (world.size() == 1) {
    spdlog::warn("--cache {}: one rank owns every row, so there is nothing to cache", policy);
    return {};
  }
  core::Timer ranking;
  std::vector<std::int64_t> ids;
  world.agree_on([&] {
    feature::CacheContext context = cache_context(options, data, fanouts, world.rank());
    context.steps = steps;
    context.measured = {options.run.seed, start_epoch, options.run.epochs - start_epoch};
    context.simulation_epochs = options.cache_epochs;
    const auto scores = feature::cache_scores(options.cache, context);
    ids = feature::select_cache(scores, data.book, world.rank(),
                                feature::cache_capacity(options.alpha, data.book, world.rank()));
  });
  const double ranking_seconds = ranking.seconds();
  feature::StaticCache cache;
  world.agree_on([&] { cache = feature::StaticCache::fill(fetcher, std::move(ids), options.cache_dtype); });
  std::int64_t rows = cache.size(), bytes = cache.rows().bytes(), fill_bytes = cache.fill_stats().bytes;
  world.sum_fields(comm::Channel::control, rows, bytes, fill_bytes);
  record = {{"event", "cache"},
            {"policy", policy},
            {"alpha", options.alpha},
            {"rows", rows},
            {"bytes", bytes},
            {"fill_bytes_received", fill_bytes},
            {"ranking_seconds", ranking_seconds},
            {"fill_seconds", cache.fill_stats().seconds}};
  if (world.rank() == 0)
    spdlog::info("static cache '{}' alpha {}: {} rows over {} ranks ({}), ranked in {:.2f}s, filled in {:.2f}s", policy,
                 options.alpha, rows, world.size(), core::human_bytes(static_cast<double>(bytes)), ranking_seconds,
                 cache.fill_stats().seconds);
  return cache;
}

}  // namespace loom::train
