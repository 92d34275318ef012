// The state.json of a training checkpoint (checkpoint.hpp), read from disk and so from outside:
// parse_checkpoint_state() checks every field a trainer reads before anything uses it — those of
// every checkpoint (format::parse_checkpoint_record) and: epoch_totals (optional) an array with an
// array of numbers per rank; epochs (optional) an array of objects; selection (optional) an
// object whose best_epoch is a non-negative int and, when it is not 0, best_valid_score and
// best_valid_loss numbers; metrics_log (optional) {bytes, crc32} of the run's metrics log when the
// checkpoint was written (core/metrics.hpp). Anything else is an Error naming `path`.
// Free of LibTorch, so that the fuzz target tests/fuzz/fuzz_checkpoint_state.cpp can build it alone.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "loom/format/checkpoint_dir.hpp"
#include "loom/core/metrics.hpp"

namespace loom::train {

struct CheckpointState : format::CheckpointRecord {  // json: records and selection for the trainer
  std::vector<std::vector<double>> epoch_totals;     // per rank: what that epoch's steps summed so far
  std::optional<core::LogPrefix> metrics_log;        // what the metrics log held
};

CheckpointState parse_checkpoint_state(const std::string& text, const std::string& path);

}  // namespace loom::train
