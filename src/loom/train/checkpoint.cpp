#include "loom/train/checkpoint.hpp"
#include "loom/train/checkpoint_state.hpp"

#include "loom/core/error.hpp"
#include "loom/core/fs.hpp"

namespace loom::train {
namespace {

CheckpointState read_state(const std::string& path) {
  const std::string file = path + "/state.json";
  return parse_checkpoint_state(core::read_text_file(file), file);
}

// Writes `archive` to PATH through Loom's checked, atomic file writes: serialised in memory first,
// because LibTorch's own file writer aborts the process when a write fails (a full disk).
void save_archive(torch::serialize::OutputArchive& archive, const std::string& path) {
  std::string bytes;
  archive.save_to([&](const void* data, std::size_t size) {
    bytes.append(static_cast<const char*>(data), size);
    return size;
  });
  core::write_text_file(path, bytes);  // bytes, not only text: a failed write is an Error naming the file
}

}  // namespace

void save_checkpoint(const std::string& dir, CheckpointId id, torch::nn::Module& model,
                     torch::optim::Optimizer& optimizer, const nlohmann::json& state, const CheckpointTensors& tensors,
                     int keep) {
  const auto write_archives = [&](const core::OutputDir& out) {
    {
      torch::serialize::OutputArchive archive;
      model.save(archive);
      save_archive(archive, out.file("model.pt"));
    }
    {
      torch::serialize::OutputArchive archive;
      optimizer.save(archive);
      save_archive(archive, out.file("optimizer.pt"));
    }
    if (!tensors.empty()) {
      torch::serialize::OutputArchive archive;
      for (const auto& [name, tensor] : tensors) archive.write(name, tensor, /*is_buffer=*/true);
      save_archive(archive, out.file("tensors.pt"));
    }
  };
  format::write_checkpoint(dir, id, write_archives, state, keep);
}

namespace {

// The path of checkpoint `id` (default: the newest intact one), or "" when DIR has none.
std::string chosen_checkpoint(const std::string& dir, std::optional<CheckpointId> id) {
  if (!id) id = newest_intact_checkpoint(dir);
  return id ? format::checkpoint_path(dir, *id) : "";
}

}  // namespace

std::optional<nlohmann::json> read_checkpoint_state(const std::string& dir, std::optional<CheckpointId> id) {
  const std::string path = chosen_checkpoint(dir, id);
  if (path.empty()) return std::nullopt;
  return read_state(path).json;
}

std::optional<nlohmann::json> load_checkpoint(const std::string& dir, torch::nn::Module& model,
                                              torch::optim::Optimizer& optimizer, const std::string& fingerprint,
                                              const CheckpointTensors& tensors, std::optional<CheckpointId> id) {
  const std::string path = chosen_checkpoint(dir, id);
  if (path.empty()) return std::nullopt;
  const CheckpointState state = read_state(path);
  if (state.fingerprint != fingerprint)
    throw Error::in_file(path, 0,
                         "checkpoint was written by a run with different model or data options (" + state.fingerprint +
                             " vs " + fingerprint + ")");
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
  return state.json;
}

}  // namespace loom::train
