// Training checkpoints in the directories of format/checkpoint_dir.hpp: DIR/epoch-<E>/ (or, for a
// run stopped mid-epoch by SIGTERM, DIR/epoch-<E>-step-<S>/) holds model.pt and optimizer.pt
// (LibTorch archives), tensors.pt (named tensors a trainer carries between epochs, such as
// historical embeddings) and state.json (position, options fingerprint, metrics so far).
// With keep > 0, saving removes the older checkpoints beyond the newest `keep`.
// Resuming loads the newest INTACT checkpoint: a newer one that is truncated or corrupted is
// reported by name and skipped. With the per-(seed, epoch, batch) random streams, a resumed run
// continues to the same result as an uninterrupted one.
#pragma once

#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "loom/format/checkpoint_dir.hpp"

namespace loom::train {

using format::CheckpointId;
using format::newest_intact_checkpoint;

// Named tensors; on loading, each is overwritten in place with the saved tensor of its name.
using CheckpointTensors = std::map<std::string, torch::Tensor>;

void save_checkpoint(const std::string& dir, CheckpointId id, torch::nn::Module& model,
                     torch::optim::Optimizer& optimizer, const nlohmann::json& state,
                     const CheckpointTensors& tensors = {}, int keep = 0);

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
