// The check of a store's digests that both trainers run beside their setup: each rank verifies a
// share of the store's files in the background (partition/store_verification.hpp) and the ranks
// join before the first step, so that all of them stop together on a mismatch.
#pragma once

#include <string>

#include "loom/comm/communicator.hpp"
#include "loom/core/metrics.hpp"
#include "loom/partition/store_verification.hpp"

namespace loom::loader {

// Starts verifying the store's digests (partition/store_verification.hpp), this rank's share: part
// k on rank k, the partitioned store's own files on rank 0 and its topology on rank 1 (mod the
// ranks). Join on every rank with world.agree_on([&] { v.wait(); }) before the first step, so that
// all ranks stop together on a mismatch.
partition::StoreVerification start_store_verification(const std::string& path, const comm::Communicator& world);
// Joins it on every rank; on a mismatch every rank throws, and `metrics` (the run's log, written
// from the setup) is discarded first: nothing derived from a store that fails its digests stays.
void join_digest_check(partition::StoreVerification& digests, core::MetricsLog& metrics,
                       const comm::Communicator& world);

}  // namespace loom::loader
