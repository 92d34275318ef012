#include "loom/train/checkpoint.hpp"

#include <filesystem>

#include "loom/core/error.hpp"
#include "loom/core/fs.hpp"

namespace fs = std::filesystem;

namespace loom::train {

void save_checkpoint(const std::string& dir, int epochs_done, torch::nn::Module& model, torch::optim::Optimizer& optimizer,
                     const nlohmann::json& state, const CheckpointTensors& tensors) {
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
