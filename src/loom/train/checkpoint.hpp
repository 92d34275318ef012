// Training checkpoints: DIR/epoch-<E>/ holds model.pt and optimizer.pt (LibTorch archives),
// tensors.pt (named tensors a trainer carries between epochs, such as historical embeddings)
// and state.json (epochs done, options fingerprint, metrics so far); DIR/latest names the newest.
// A run stopped mid-epoch (SIGTERM) saves DIR/epoch-<E>-step-<S>/: E epochs and S steps of the
// next one done, ordered after epoch-<E> and before epoch-<E+1>.
// With keep > 0, saving removes the older checkpoints beyond the newest `keep`.
// Written by rank 0 atomically (a crash leaves the previous checkpoint intact); state.json lists
// the size and CRC-32 of every file beside it. Resuming loads the newest INTACT checkpoint on every
// rank: a newer one that is truncated or corrupted (state.json unreadable, a file missing or not
// matching its size or CRC) is reported by name and skipped. With the per-(seed, epoch, batch)
// random streams, a resumed run continues to the same result as an uninterrupted one.
#pragma once

#include <compare>
#include <limits>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

namespace loom::train {

// Where a checkpoint is in training: `epochs` whole epochs done, then `steps` steps of the next.
struct CheckpointId {
  int epochs = 0;
  int steps = 0;
  CheckpointId(int epochs_done = 0, int steps_done = 0) : epochs(epochs_done), steps(steps_done) {}  // NOLINT: an int is an epoch
  auto operator<=>(const CheckpointId&) const = default;
  std::string name() const;  // epoch-<E> or epoch-<E>-step-<S>
};

// Named tensors; on loading, each is overwritten in place with the saved tensor of its name.
using CheckpointTensors = std::map<std::string, torch::Tensor>;

void save_checkpoint(const std::string& dir, CheckpointId id, torch::nn::Module& model, torch::optim::Optimizer& optimizer,
                     const nlohmann::json& state, const CheckpointTensors& tensors = {}, int keep = 0);

// The newest intact checkpoint of DIR not after `at_most`, or
// nullopt when it has none; each newer damaged checkpoint is reported (a warning naming it and
// what is wrong). Throws Error when DIR holds checkpoints but none of them is intact.
std::optional<CheckpointId> newest_intact_checkpoint(
    const std::string& dir, CheckpointId at_most = {std::numeric_limits<int>::max(), std::numeric_limits<int>::max()});

// The state.json of checkpoint `id` of DIR (default: the newest intact one), or nullopt
// when DIR has none (for what a run must know before it builds its model and optimizer).
std::optional<nlohmann::json> read_checkpoint_state(const std::string& dir, std::optional<CheckpointId> id = {});

// Loads checkpoint `id` of DIR (default: the newest intact one) into model, optimizer and
// `tensors` (every name must have been saved, with the same shape); returns its state.json, or
// nullopt when DIR has none. Throws Error naming the file when it is unreadable or was made with a
// different model (`fingerprint` must match the saved one).
std::optional<nlohmann::json> load_checkpoint(const std::string& dir, torch::nn::Module& model,
                                              torch::optim::Optimizer& optimizer, const std::string& fingerprint,
                                              const CheckpointTensors& tensors = {},
                                              std::optional<CheckpointId> id = {});

}  // namespace loom::train
