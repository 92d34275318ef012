// Training checkpoints: DIR/epoch-<E>/ holds model.pt and optimizer.pt (LibTorch archives),
// tensors.pt (named tensors a trainer carries between epochs, such as historical embeddings)
// and state.json (epochs done, options fingerprint, metrics so far); DIR/latest names the newest.
// With keep > 0, saving removes the older checkpoints beyond the newest `keep`.
// Written by rank 0 atomically (a crash leaves the previous checkpoint intact). Resuming loads
// the newest checkpoint on every rank; with the per-(seed, epoch, batch) random streams, a
// resumed run continues to the same result as an uninterrupted one.
#pragma once

#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

namespace loom::train {

// Named tensors; on loading, each is overwritten in place with the saved tensor of its name.
using CheckpointTensors = std::map<std::string, torch::Tensor>;

void save_checkpoint(const std::string& dir, int epochs_done, torch::nn::Module& model, torch::optim::Optimizer& optimizer,
                     const nlohmann::json& state, const CheckpointTensors& tensors = {}, int keep = 0);

// The state.json of the newest checkpoint in DIR, or nullopt when DIR has none (for what a run
// must know before it builds its model and optimizer). Throws Error naming an unreadable file.
std::optional<nlohmann::json> read_checkpoint_state(const std::string& dir);

// Loads the newest checkpoint into model, optimizer and `tensors` (every name must have been
// saved, with the same shape); returns its state.json, or nullopt when DIR has none. Throws
// Error naming the file when it is unreadable or was made with a different model
// (`fingerprint` must match the saved one).
std::optional<nlohmann::json> load_checkpoint(const std::string& dir, torch::nn::Module& model,
                                              torch::optim::Optimizer& optimizer, const std::string& fingerprint,
                                              const CheckpointTensors& tensors = {});

}  // namespace loom::train
