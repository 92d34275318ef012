#include "loom/train/minibatch/model_selection.hpp"

#include "loom/core/error.hpp"

namespace loom::train {

namespace {

// The model's parameters and buffers by name, in a fixed order.
std::vector<std::pair<std::string, torch::Tensor>> named_state(torch::nn::Module& model) {
  std::vector<std::pair<std::string, torch::Tensor>> out;
  for (const auto& item : model.named_parameters()) out.emplace_back(item.key(), item.value());
  for (const auto& item : model.named_buffers()) out.emplace_back(item.key(), item.value());
  return out;
}

}  // namespace

ModelSelection::ModelSelection(Selection selection, int patience, torch::nn::Module& model)
    : selection_(selection), patience_(patience), model_(&model) {
  LOOM_CHECK_ARG(patience >= 0, "--patience", "must be >= 0, got {}", patience);
  if (selection_ != Selection::kBestValid) return;
  torch::NoGradGuard no_grad;
  for (auto& [name, tensor] : named_state(model)) best_.emplace_back(name, tensor.detach().clone());
}

bool ModelSelection::observe(int epoch, double valid_score, double valid_loss) {
  const bool better = valid_score > best_score_ || (valid_score == best_score_ && valid_loss < best_loss_);
  if (!better) return false;
  best_epoch_ = epoch;
  best_score_ = valid_score;
  best_loss_ = valid_loss;
  if (selection_ == Selection::kBestValid) {
    torch::NoGradGuard no_grad;
    const auto now = named_state(*model_);
    for (std::size_t i = 0; i < best_.size(); ++i) best_[i].second.copy_(now[i].second);
  }
  return true;
}

bool ModelSelection::should_stop(int epoch) const {
  return patience_ > 0 && best_epoch_ > 0 && epoch - best_epoch_ >= patience_;
}

bool ModelSelection::restore_best() {
  if (selection_ != Selection::kBestValid || best_epoch_ == 0) return false;
  torch::NoGradGuard no_grad;
  const auto now = named_state(*model_);
  for (std::size_t i = 0; i < best_.size(); ++i) now[i].second.copy_(best_[i].second);
  return true;
}

nlohmann::json ModelSelection::state() const {
  if (best_epoch_ == 0) return {{"best_epoch", 0}};
  return {{"best_epoch", best_epoch_}, {"best_valid_score", best_score_}, {"best_valid_loss", best_loss_}};
}

void ModelSelection::load_state(const nlohmann::json& state) {
  best_epoch_ = state.value("best_epoch", 0);
  if (best_epoch_ == 0) return;
  best_score_ = state.at("best_valid_score").get<double>();
  best_loss_ = state.at("best_valid_loss").get<double>();
}

CheckpointTensors ModelSelection::checkpoint_tensors() const {
  CheckpointTensors tensors;
  for (const auto& [name, tensor] : best_) tensors.emplace("best/" + name, tensor);
  return tensors;
}

}  // namespace loom::train
