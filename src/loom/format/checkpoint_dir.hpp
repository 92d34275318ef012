// Checkpoint directories, the part every trainer shares (train/checkpoint.hpp adds LibTorch
// archives, embed/sgns_checkpoint.hpp the SGNS weights). DIR/epoch-<E>/ holds a checkpoint after E
// epochs, DIR/epoch-<E>-step-<S>/ one after E epochs and S steps of the next (ordered after
// epoch-<E>, before epoch-<E+1>); each holds the trainer's files and state.json: the position
// (epochs_done, steps_done), the options fingerprint, the trainer's own fields, and the size and
// CRC-32 of every file beside it. DIR/latest names the newest.
// write_checkpoint() writes one atomically (a crash leaves the previous ones intact) and keeps
// only the newest `keep`; newest_intact_checkpoint() skips every newer checkpoint that is
// truncated or corrupted (state.json unreadable, a file missing or not matching its size or CRC),
// with a warning naming it. state.json comes from disk, so from outside: parse_checkpoint_record()
// checks the fields above before anything uses them, and anything else is an Error naming the file.
#pragma once

#include <compare>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "loom/format/digest.hpp"
#include "loom/core/fs.hpp"

namespace loom::format {

// Where a checkpoint is in training: `epochs` whole epochs done, then `steps` steps of the next.
struct CheckpointId {
  int epochs = 0;
  int steps = 0;
  CheckpointId(int epochs_done = 0, int steps_done = 0)
      : epochs(epochs_done), steps(steps_done) {}  // NOLINT: an int is an epoch
  auto operator<=>(const CheckpointId&) const = default;
  std::string name() const;  // epoch-<E> or epoch-<E>-step-<S>
};

// The fields of state.json every checkpoint has: epochs_done and steps_done (optional, 0)
// non-negative ints, fingerprint (optional) a string, files an object of plain file names (no
// path separators) to {"bytes", "crc32"} unsigned integers.
struct CheckpointRecord {
  nlohmann::json json;  // the whole document, with the trainer's own fields
  int epochs_done = 0;
  int steps_done = 0;
  std::string fingerprint;
  std::map<std::string, FileDigest> files;
};

CheckpointRecord parse_checkpoint_record(const std::string& text, const std::string& path);
// Throws the Error parse_checkpoint_record() throws: "invalid checkpoint state: WHAT" in `path`.
[[noreturn]] void invalid_checkpoint_state(const std::string& path, const std::string& what);

std::string checkpoint_path(const std::string& dir, CheckpointId id);  // DIR/<id.name()>

// Writes checkpoint `id` of DIR: `write_files` writes the trainer's files into the (temporary)
// directory it is given, then state.json gets `state` with the position and their digests. With
// keep > 0, removes the older checkpoints beyond the newest `keep`. A failed write (a full disk)
// is an Error naming the file, and leaves the checkpoints before intact.
void write_checkpoint(const std::string& dir, CheckpointId id,
                      const std::function<void(const core::OutputDir&)>& write_files, nlohmann::json state,
                      int keep = 0);

// The newest intact checkpoint of DIR not after `at_most` nor after the one DIR/latest names (a
// newer one is another run's leftover), or nullopt when it has none; each newer damaged checkpoint
// is reported (a warning naming it and what is wrong). Throws Error naming --resume when DIR holds
// checkpoints but none of them is intact.
std::optional<CheckpointId> newest_intact_checkpoint(const std::string& dir,
                                                     CheckpointId at_most = {std::numeric_limits<int>::max(),
                                                                             std::numeric_limits<int>::max()});

// Whether DIR holds checkpoints (its own, or in rank-<k>/ folders: full-graph training's).
bool holds_checkpoints(const std::string& dir);
// A run that does not resume may not mix its checkpoints with an earlier run's: throws Error naming
// --checkpoint-dir when DIR holds checkpoints, unless `overwrite` (the run then replaces them:
// remove_checkpoints() before its first epoch).
void check_checkpoint_target(const std::string& dir, bool resume, bool overwrite);
// Removes DIR's checkpoints and its `latest` (not those of its rank-<k>/ folders: each rank removes
// its own); leaves other files.
void remove_checkpoints(const std::string& dir);

}  // namespace loom::format
