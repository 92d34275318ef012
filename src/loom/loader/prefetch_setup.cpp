#include "loom/loader/prefetch_setup.hpp"

#include "loom/core/log.hpp"
#include "loom/core/rng.hpp"
#include "loom/loader/cache_setup.hpp"

namespace loom::loader {

std::string decision_log_path(const std::string& path, int rank, int ranks) {
  if (path.empty() || ranks == 1) return path;
  const auto dot = path.rfind('.');
  const std::string suffix = ".rank" + std::to_string(rank);
  return dot == std::string::npos || dot < path.rfind('/') + 1 ? path + suffix
                                                               : path.substr(0, dot) + suffix + path.substr(dot);
}

namespace {

// Scores for the initial fill (per global vertex); empty for an empty buffer.
std::vector<double> initial_scores(feature::PrefetchStart initial, const TrainingBatches& batches,
                                   const TrainingData& data, int rank) {
  using feature::CachePolicy, feature::PrefetchStart;
  if (initial == PrefetchStart::kEmpty) return {};
  const CachePolicy policy = initial == PrefetchStart::kDegree   ? CachePolicy::kDegree
                             : initial == PrefetchStart::kRandom ? CachePolicy::kRandom
                                                                 : CachePolicy::kVip;
  return feature::cache_scores(policy, cache_context(batches, data, rank));
}

}  // namespace

feature::PrefetchOptions effective_prefetch_options(const PrefetchSetupOptions& options) {
  feature::PrefetchOptions buffer_options = options.buffer;
  if (options.controller.kind == control::ControllerKind::kLookahead && buffer_options.lookahead == 0)
    buffer_options.lookahead = kDefaultLookahead;
  return buffer_options;
}

PrefetchSetup build_prefetch(const PrefetchSetupOptions& options, const TrainingBatches& batches,
                             const TrainingData& data, const feature::RemoteFetcher& fetcher, comm::Communicator& world,
                             nlohmann::json& record) {
  PrefetchSetup setup;
  if (options.controller.kind == control::ControllerKind::kNone) return setup;
  const std::string controller_name = core::enum_name(control::kControllerNames, options.controller.kind);
  const std::string initial = core::enum_name(feature::kPrefetchStartNames, options.buffer.initial);
  if (world.size() == 1) {
    spdlog::warn("--controller {}: one rank owns every row, so there is nothing to prefetch; no buffer built",
                 controller_name);
    return setup;
  }
  std::vector<double> scores;
  const feature::PrefetchOptions buffer_options = effective_prefetch_options(options);
  world.agree_on([&] {
    feature::check(buffer_options);
    setup.buffer = std::make_unique<feature::PrefetchBuffer>(
        data.book.range(world.rank()), data.num_nodes(),
        feature::PrefetchBuffer::capacity_for(static_cast<std::int64_t>(data.halo_ids.size()), buffer_options),
        data.feat_dim, buffer_options, /*sparse_rows=*/data.features.is_sparse());
    scores = initial_scores(options.buffer.initial, batches, data, world.rank());
  });
  feature::FetchStats fill;
  world.agree_on([&] { fill = setup.buffer->fill(fetcher, scores); });
  control::ControllerOptions controller = options.controller;
  controller.seed = core::mix_seed(batches.seed, static_cast<std::uint64_t>(world.rank()));
  const nlohmann::json facts = {{"graph_nodes", data.num_nodes()},
                                {"ranks", world.size()},
                                {"rank", world.rank()},
                                {"own_nodes", data.num_local},
                                {"halo_nodes", data.halo_ids.size()},
                                {"buffer_capacity", setup.buffer->capacity()},
                                {"batch_size", batches.batch_size},
                                {"fanouts", batches.fanouts.values()},
                                {"decay", options.buffer.decay},
                                {"eviction_after_idle_minibatches", options.buffer.period}};
  world.agree_on([&] {
    setup.control =
        std::make_unique<PrefetchControl>(*setup.buffer, control::make_controller(controller), options.window, facts,
                                          decision_log_path(options.decision_log, world.rank(), world.size()));
  });
  std::int64_t capacity = setup.buffer->capacity(), halo = static_cast<std::int64_t>(data.halo_ids.size());
  std::int64_t initial_rows = setup.buffer->occupancy(), fill_bytes = fill.bytes;
  world.sum_fields(comm::Channel::control, capacity, halo, initial_rows, fill_bytes);
  record = {{"event", "prefetch"},
            {"controller", controller_name},
            {"fraction", options.buffer.fraction},
            {"initial", initial},
            {"capacity", capacity},
            {"halo", halo},
            {"initial_rows", initial_rows},
            {"fill_bytes_received", fill_bytes},
            {"lookahead", buffer_options.lookahead}};
  if (world.rank() == 0)
    spdlog::info(
        "prefetch buffer: {} rows over {} ranks ({} of their {} halo vertices), {} filled by {}, controller '{}'",
        capacity, world.size(), options.buffer.fraction, halo, initial_rows, initial, controller_name);
  return setup;
}

}  // namespace loom::loader
