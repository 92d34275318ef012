// The prefetch buffer and controller of `loom train --controller NAME` (Rudder): each rank
// buffers as many remote rows as `--prefetch` of its halo has, filled at start (empty, by degree, random or by VIP) in
// one collective exchange, and a PrefetchControl that runs the controller. Collective over `world` and the fetcher's
// communicator; nothing is built for --controller none or a single rank.
// --controller lookahead turns lookahead admission on (kDefaultLookahead minibatches unless
// --prefetch-lookahead gives a number); the buffer's options() say what it runs with.
// `record` receives a JSON summary (capacity, halo, initial rows, controller).
#pragma once

#include <memory>
#include <span>
#include <string>

#include "loom/comm/communicator.hpp"
#include "loom/loader/cache_setup.hpp"
#include "loom/loader/loader_options.hpp"
#include "loom/loader/prefetch_control.hpp"
#include "loom/loader/training_data.hpp"

namespace loom::loader {

inline constexpr int kDefaultLookahead = 4;

// The buffer options a run builds with: --prefetch-* with the lookahead controller's default.
feature::PrefetchOptions effective_prefetch_options(const PrefetchSetupOptions& options);

struct PrefetchSetup {
  std::unique_ptr<feature::PrefetchBuffer> buffer;
  std::unique_ptr<PrefetchControl> control;
};

PrefetchSetup build_prefetch(const PrefetchSetupOptions& options, const TrainingBatches& batches,
                             const TrainingData& data, const feature::RemoteFetcher& fetcher, comm::Communicator& world,
                             nlohmann::json& record);

// The file of `rank`'s decision log (per-rank "log.rank<K>.jsonl" when there are several ranks).
std::string decision_log_path(const std::string& path, int rank, int ranks);

}  // namespace loom::loader
