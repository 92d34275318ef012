// ModelSelection follows the validation score along a run: under Selection::kBestValid it keeps a
// copy of the weights of the best epoch so far (a higher validation score; at an equal score a
// lower validation loss; else the earlier epoch), which restore_best() puts back into the model
// before the final evaluation and outputs; with patience > 0 it says when to stop early (that many
// epochs after the best). Its state (best epoch, score, loss) and the kept weights go into
// checkpoints (state() / checkpoint_tensors()), so a resumed run selects as an uninterrupted one.
#pragma once

#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "loom/train/checkpoint.hpp"
#include "loom/train/minibatch/minibatch_options.hpp"

namespace loom::train {

class ModelSelection {
 public:
  // `model` must outlive the selection.
  ModelSelection(Selection selection, int patience, torch::nn::Module& model);

  // Epoch `epoch` (1-based) was evaluated; returns true when it is the best so far.
  bool observe(int epoch, double valid_score, double valid_loss);
  // True when early stopping ends the run after epoch `epoch`.
  bool should_stop(int epoch) const;
  // Under kBestValid, once an epoch was observed: copies its weights into the model; returns
  // whether it did.
  bool restore_best();

  int best_epoch() const { return best_epoch_; }  // 0 = none observed
  double best_score() const { return best_score_; }

  nlohmann::json state() const;
  void load_state(const nlohmann::json& state);
  // The kept weights, named "best/<parameter>" (empty under kLast): saved with a checkpoint and
  // overwritten in place when one is loaded.
  CheckpointTensors checkpoint_tensors() const;

 private:
  Selection selection_;
  int patience_;
  torch::nn::Module* model_;
  int best_epoch_ = 0;
  double best_score_ = -std::numeric_limits<double>::infinity();
  double best_loss_ = std::numeric_limits<double>::infinity();
  std::vector<std::pair<std::string, torch::Tensor>> best_;  // copies of the named parameters and buffers
};

}  // namespace loom::train
