#include "loom/train/checkpoint.hpp"
#include "loom/train/checkpoint_state.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <string_view>
#include <vector>

#include <spdlog/spdlog.h>
#include <zlib.h>

#include "loom/core/error.hpp"
#include "loom/core/fs.hpp"

namespace fs = std::filesystem;

namespace loom::train {
namespace {

// The checkpoint a directory name stands for (epoch-<E> or epoch-<E>-step-<S>), if any.
std::optional<CheckpointId> parse_checkpoint_name(const std::string& name) {
  const auto number = [](std::string_view digits) -> std::optional<int> {
    if (digits.empty() || digits.size() > 9 ||
        !std::all_of(digits.begin(), digits.end(), [](unsigned char c) { return std::isdigit(c); }))
      return std::nullopt;
    return std::stoi(std::string(digits));
  };
  if (!name.starts_with("epoch-")) return std::nullopt;
  const std::string_view rest = std::string_view(name).substr(6);
  const std::size_t step = rest.find("-step-");
  const auto epochs = number(rest.substr(0, step));
  if (!epochs) return std::nullopt;
  if (step == std::string_view::npos) return CheckpointId{*epochs};
  const auto steps = number(rest.substr(step + 6));
  if (!steps || *steps == 0) return std::nullopt;
  return CheckpointId{*epochs, *steps};
}

// DIR's checkpoint directories, newest first.
std::vector<CheckpointId> checkpoint_ids(const std::string& dir) {
  std::vector<CheckpointId> ids;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (const auto id = parse_checkpoint_name(entry.path().filename().string()); id && entry.is_directory())
      ids.push_back(*id);
  std::sort(ids.rbegin(), ids.rend());
  return ids;
}

std::string checkpoint_path(const std::string& dir, CheckpointId id) { return dir + "/" + id.name(); }

// Removes the checkpoints of DIR older than `newest` but the keep - 1 most recent of them.
void prune_checkpoints(const std::string& dir, CheckpointId newest, int keep) {
  std::vector<CheckpointId> older;
  for (const CheckpointId id : checkpoint_ids(dir))
    if (id < newest) older.push_back(id);
  for (std::size_t i = static_cast<std::size_t>(keep - 1); i < older.size(); ++i)
    fs::remove_all(checkpoint_path(dir, older[i]));
}

FileDigest file_digest(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error::in_file(path, 0, "cannot read");
  std::vector<char> buffer(1 << 20);
  uLong crc = crc32(0L, Z_NULL, 0);
  std::uint64_t bytes = 0;
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    const auto got = static_cast<std::size_t>(in.gcount());
    crc = crc32(crc, reinterpret_cast<const Bytef*>(buffer.data()), static_cast<uInt>(got));
    bytes += got;
  }
  return {bytes, static_cast<std::uint64_t>(crc)};
}

CheckpointState read_state(const std::string& path) {
  const std::string file = path + "/state.json";
  return parse_checkpoint_state(core::read_text_file(file), file);
}

// What is wrong with the checkpoint at PATH, or "" when it is intact.
std::string checkpoint_damage(const std::string& path) {
  try {
    for (const auto& [name, expected] : read_state(path).files) {
      if (!fs::exists(path + "/" + name)) return name + " is missing";
      const FileDigest found = file_digest(path + "/" + name);
      if (found.bytes != expected.bytes)
        return fmt::format("{} has {} bytes, {} were written", name, found.bytes, expected.bytes);
      if (found.crc32 != expected.crc32) return name + " does not match its CRC-32";
    }
    return "";
  } catch (const Error& e) {
    return e.what();
  }
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

std::string CheckpointId::name() const {
  return steps == 0 ? fmt::format("epoch-{}", epochs) : fmt::format("epoch-{}-step-{}", epochs, steps);
}

void save_checkpoint(const std::string& dir, CheckpointId id, torch::nn::Module& model, torch::optim::Optimizer& optimizer,
                     const nlohmann::json& state, const CheckpointTensors& tensors, int keep) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw Error::in_argument("--checkpoint-dir", "cannot create '" + dir + "': " + ec.message());
  const std::string name = id.name();
  core::OutputDir out(dir + "/" + name, /*overwrite=*/true, "--checkpoint-dir");
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
  nlohmann::json s = state;
  s["epochs_done"] = id.epochs;
  if (id.steps > 0) s["steps_done"] = id.steps;
  s["files"] = nlohmann::json::object();
  for (const char* file : {"model.pt", "optimizer.pt", "tensors.pt"})
    if (fs::exists(out.file(file))) {
      const FileDigest digest = file_digest(out.file(file));
      s["files"][file] = {{"bytes", digest.bytes}, {"crc32", digest.crc32}};
    }
  core::write_text_file(out.file("state.json"), s.dump(2) + "\n");
  out.commit();
  core::write_text_file(dir + "/latest", name + "\n");
  if (keep > 0) prune_checkpoints(dir, id, keep);
}

std::optional<CheckpointId> newest_intact_checkpoint(const std::string& dir, CheckpointId at_most) {
  std::string newest_damage;
  for (const CheckpointId id : checkpoint_ids(dir)) {
    if (id > at_most) continue;
    const std::string damage = checkpoint_damage(checkpoint_path(dir, id));
    if (damage.empty()) return id;
    spdlog::warn("checkpoint {} is damaged ({}): trying an older one", checkpoint_path(dir, id), damage);
    if (newest_damage.empty()) newest_damage = checkpoint_path(dir, id) + ": " + damage;
  }
  if (!newest_damage.empty()) throw Error::in_argument("--resume", "no intact checkpoint in " + dir + " (" + newest_damage + ")");
  return std::nullopt;
}

namespace {

// The path of checkpoint `id` (default: the newest intact one), or "" when DIR has none.
std::string chosen_checkpoint(const std::string& dir, std::optional<CheckpointId> id) {
  if (!id) id = newest_intact_checkpoint(dir);
  return id ? checkpoint_path(dir, *id) : "";
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
    throw Error::in_file(path, 0, "checkpoint was written by a run with different model or data options (" +
                                      state.fingerprint + " vs " + fingerprint + ")");
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
