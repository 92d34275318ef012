// The state.json of a training checkpoint (checkpoint.hpp), read from disk and so from outside:
// parse_checkpoint_state() checks every field a trainer reads before anything uses it — a JSON
// object; epochs_done and steps_done (optional, 0) non-negative ints; epoch_totals (optional) an
// array with an array of numbers per rank; fingerprint (optional) a string; files an object of plain file names
// (no path separators) to {"bytes", "crc32"} unsigned integers; epochs (optional) an array of
// objects; selection (optional) an object whose best_epoch is a non-negative int and, when it is
// not 0, best_valid_score and best_valid_loss numbers. Anything else is an Error naming `path`.
// Free of LibTorch, so that the fuzz target tests/fuzz/fuzz_checkpoint_state.cpp can build it alone.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace loom::train {

struct FileDigest {
  std::uint64_t bytes = 0;
  std::uint64_t crc32 = 0;
};

struct CheckpointState {
  nlohmann::json json;  // the whole document (records and selection for the trainer)
  int epochs_done = 0;
  int steps_done = 0;  // steps of the next epoch (a run stopped mid-epoch)
  std::vector<std::vector<double>> epoch_totals;  // per rank: what that epoch's steps summed so far
  std::string fingerprint;
  std::map<std::string, FileDigest> files;
};

CheckpointState parse_checkpoint_state(const std::string& text, const std::string& path);

}  // namespace loom::train
