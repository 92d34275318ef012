#include "loom/train/checkpoint.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <vector>

#include "loom/core/error.hpp"
#include "loom/core/fs.hpp"

namespace fs = std::filesystem;

namespace loom::train {
namespace {

// Removes the checkpoints of DIR older than epoch `newest` but the keep - 1 most recent of them.
void prune_checkpoints(const std::string& dir, int newest, int keep) {
  std::vector<int> older;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    const std::string digits = name.substr(std::min<std::size_t>(name.size(), 6));
    if (!entry.is_directory() || !name.starts_with("epoch-") || digits.empty() ||
        !std::all_of(digits.begin(), digits.end(), [](unsigned char c) { return std::isdigit(c); }))
      continue;
    if (const int epoch = std::stoi(digits); epoch < newest) older.push_back(epoch);
  }
  std::sort(older.rbegin(), older.rend());
  for (std::size_t i = static_cast<std::size_t>(keep - 1); i < older.size(); ++i)
    fs::remove_all(dir + "/epoch-" + std::to_string(older[i]));
}

}  // namespace

void save_checkpoint(const std::string& dir, int epochs_done, torch::nn::Module& model, torch::optim::Optimizer& optimizer,
                     const nlohmann::json& state, const CheckpointTensors& tensors, int keep) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw Error::in_argument("--checkpoint-dir", "cannot create '" + dir + "': " + ec.message());
  const std::string name = "epoch-" + std::to_string(epochs_done);
  core::OutputDir out(dir + "/" + name, /*overwrite=*/true, "--checkpoint-dir");
  {
    torch::serialize::OutputArchive archive;
    model.save(archive);
    archive.save_to(out.file("model.pt"));
  }
  {
    torch::serialize::OutputArchive archive;
    optimizer.save(archive);
    archive.save_to(out.file("optimizer.pt"));
  }
  if (!tensors.empty()) {
    torch::serialize::OutputArchive archive;
    for (const auto& [name, tensor] : tensors) archive.write(name, tensor, /*is_buffer=*/true);
    archive.save_to(out.file("tensors.pt"));
  }
  nlohmann::json s = state;
  s["epochs_done"] = epochs_done;
  core::write_text_file(out.file("state.json"), s.dump(2) + "\n");
  out.commit();
  core::write_text_file(dir + "/latest", name + "\n");
  if (keep > 0) prune_checkpoints(dir, epochs_done, keep);
}

namespace {

// DIR/<newest>, or "" when DIR has no checkpoint.
std::string latest_checkpoint(const std::string& dir) {
  if (!fs::exists(dir + "/latest")) return "";
  std::string name = core::read_text_file(dir + "/latest");
  while (!name.empty() && (name.back() == '\n' || name.back() == ' ')) name.pop_back();
  return dir + "/" + name;
}

nlohmann::json read_state(const std::string& path) {
  try {
    return nlohmann::json::parse(core::read_text_file(path + "/state.json"));
  } catch (const nlohmann::json::exception& e) {
    throw Error::in_file(path + "/state.json", 0, std::string("invalid checkpoint state: ") + e.what());
  }
}

}  // namespace

std::optional<nlohmann::json> read_checkpoint_state(const std::string& dir) {
  const std::string path = latest_checkpoint(dir);
  if (path.empty()) return std::nullopt;
  return read_state(path);
}

std::optional<nlohmann::json> load_checkpoint(const std::string& dir, torch::nn::Module& model,
                                              torch::optim::Optimizer& optimizer, const std::string& fingerprint,
                                              const CheckpointTensors& tensors) {
  const std::string path = latest_checkpoint(dir);
  if (path.empty()) return std::nullopt;
  const nlohmann::json state = read_state(path);
  if (state.value("fingerprint", "") != fingerprint)
    throw Error::in_file(path, 0, "checkpoint was written by a run with different model or data options (" +
                                      state.value("fingerprint", "?") + " vs " + fingerprint + ")");
  try {
    // Tensors land on the device the model is on, whichever device wrote them.
    const auto parameters = model.parameters();
    c10::optional<torch::Device> device;  // c10::optional is std::optional in newer LibTorch
    if (!parameters.empty()) device = parameters.front().device();
    torch::serialize::InputArchive archive;
    archive.load_from(path + "/model.pt", device);
    model.load(archive);
    torch::serialize::InputArchive opt_archive;
    opt_archive.load_from(path + "/optimizer.pt", device);
    optimizer.load(opt_archive);
    if (!tensors.empty()) {
      torch::serialize::InputArchive tensor_archive;
      tensor_archive.load_from(path + "/tensors.pt", device);
      for (const auto& [name, tensor] : tensors) {
        torch::Tensor saved;
        if (!tensor_archive.try_read(name, saved, /*is_buffer=*/true))
          throw Error::in_file(path + "/tensors.pt", 0, "has no tensor '" + name + "'");
        if (!saved.sizes().equals(tensor.sizes()))
          throw Error::in_file(path + "/tensors.pt", 0, "tensor '" + name + "' has another shape than this run's");
        torch::NoGradGuard no_grad;
        tensor.copy_(saved);
      }
    }
  } catch (const c10::Error& e) {
    throw Error::in_file(path, 0, std::string("cannot load checkpoint: ") + e.what_without_backtrace());
  }
  return state;
}

}  // namespace loom::train
