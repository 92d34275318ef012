#include "loom/train/cache_setup.hpp"

#include <array>

#include "loom/core/log.hpp"
#include "loom/core/timer.hpp"
#include "loom/graph/info.hpp"

namespace loom::train {

feature::CacheContext cache_context(const MinibatchOptions& options, const TrainingData& data,
                                    std::span<const std::int32_t> fanouts, int rank) {
  feature::CacheContext context;
  context.graph = &data.topology.csr();
  context.book = data.book;
  context.rank = rank;
  context.train_ids = data.train_ids;
  context.fanouts.assign(fanouts.begin(), fanouts.end());
  context.batch_size = options.batch_size;
  context.measured = {options.seed, 0, 0};
  return context;
}

feature::StaticCache build_static_cache(const MinibatchOptions& options, const TrainingData& data,
                                        std::span<const std::int32_t> fanouts, std::int64_t steps, int start_epoch,
                                        const feature::RemoteFetcher& fetcher, comm::Communicator& world,
                                        nlohmann::json& record) {
  if (options.cache == "none") return {};
  if (world.size() == 1) {
    spdlog::warn("--cache {}: one rank owns every row, so there is nothing to cache", options.cache);
    return {};
  }
  core::Timer ranking;
  std::vector<std::int64_t> ids;
  world.agree_on([&] {
    feature::CacheContext context = cache_context(options, data, fanouts, world.rank());
    context.steps = steps;
    context.measured = {options.seed, start_epoch, options.epochs - start_epoch};
    context.simulation_epochs = options.cache_epochs;
    const auto scores = feature::cache_scores(options.cache, context);
    ids = feature::select_cache(scores, data.book, world.rank(),
                                feature::cache_capacity(options.alpha, data.book, world.rank()));
  });
  const double ranking_seconds = ranking.seconds();
  feature::StaticCache cache;
  world.agree_on([&] { cache = feature::StaticCache::fill(fetcher, std::move(ids), options.cache_dtype); });
  std::array<std::int64_t, 3> totals{cache.size(), cache.rows().bytes(), cache.fill_stats().bytes};
  world.allreduce_sum(totals, comm::Channel::control);
  record = {{"event", "cache"},
            {"policy", options.cache},
            {"alpha", options.alpha},
            {"rows", totals[0]},
            {"bytes", totals[1]},
            {"fill_bytes_received", totals[2]},
            {"ranking_seconds", ranking_seconds},
            {"fill_seconds", cache.fill_stats().seconds}};
  if (world.rank() == 0)
    spdlog::info("static cache '{}' alpha {}: {} rows over {} ranks ({}), ranked in {:.2f}s, filled in {:.2f}s",
                 options.cache, options.alpha, totals[0], world.size(),
                 graph::human_bytes(static_cast<double>(totals[1])), ranking_seconds, cache.fill_stats().seconds);
  return cache;
}

}  // namespace loom::train
