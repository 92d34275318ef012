#include "loom/format/checkpoint_dir.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "loom/core/error.hpp"
#include "loom/core/fs.hpp"
#include "loom/core/json_number.hpp"

namespace fs = std::filesystem;

namespace loom::format {
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

// Removes the checkpoints of DIR older than `newest` but the keep - 1 most recent of them.
void prune_checkpoints(const std::string& dir, CheckpointId newest, int keep) {
  std::vector<CheckpointId> older;
  for (const CheckpointId id : checkpoint_ids(dir))
    if (id < newest) older.push_back(id);
  for (std::size_t i = static_cast<std::size_t>(keep - 1); i < older.size(); ++i)
    if (!core::remove_tree(checkpoint_path(dir, older[i])))
      throw Error::in_file(checkpoint_path(dir, older[i]), 0, std::string("cannot remove: ") + std::strerror(errno));
}

const nlohmann::json& member(const nlohmann::json& object, const char* key, const std::string& path) {
  const auto it = object.find(key);
  if (it == object.end()) invalid_checkpoint_state(path, std::string("no \"") + key + "\"");
  return *it;
}

void expect(bool ok, const std::string& path, const std::string& what) {
  if (!ok) invalid_checkpoint_state(path, what);
}

// What is wrong with the checkpoint at PATH, or "" when it is intact.
std::string checkpoint_damage(const std::string& path) {
  try {
    const std::string state = path + "/state.json";
    for (const auto& [name, expected] : parse_checkpoint_record(core::read_text_file(state), state).files) {
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

}  // namespace

std::string CheckpointId::name() const {
  return steps == 0 ? fmt::format("epoch-{}", epochs) : fmt::format("epoch-{}-step-{}", epochs, steps);
}

void invalid_checkpoint_state(const std::string& path, const std::string& what) {
  throw Error::in_file(path, 0, "invalid checkpoint state: " + what);
}

CheckpointRecord parse_checkpoint_record(const std::string& text, const std::string& path) {
  CheckpointRecord record;
  try {
    record.json = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    invalid_checkpoint_state(path, e.what());
  }
  const nlohmann::json& s = record.json;
  expect(s.is_object(), path, "not a JSON object");
  record.epochs_done = core::json_int<int>(member(s, "epochs_done", path), path + " (epochs_done)");
  expect(record.epochs_done >= 0, path, "negative epochs_done");
  if (const auto steps = s.find("steps_done"); steps != s.end()) {
    record.steps_done = core::json_int<int>(*steps, path + " (steps_done)");
    expect(record.steps_done >= 0, path, "negative steps_done");
  }
  if (const auto fingerprint = s.find("fingerprint"); fingerprint != s.end()) {
    expect(fingerprint->is_string(), path, "\"fingerprint\" is not a string");
    record.fingerprint = fingerprint->get<std::string>();
  }
  const nlohmann::json& files = member(s, "files", path);
  expect(files.is_object(), path, "\"files\" is not an object");
  for (const auto& [name, digest] : files.items()) {
    expect(!name.empty() && name != "." && name != ".." && name.find('/') == std::string::npos &&
               name.find('\0') == std::string::npos,
           path, "\"files\" names '" + name.substr(0, 40) + "', not a file beside state.json");
    expect(digest.is_object(), path, "the digest of " + name + " is not an object");
    record.files[name] = {core::json_int<std::uint64_t>(member(digest, "bytes", path), path + " (" + name + ".bytes)"),
                          core::json_int<std::uint64_t>(member(digest, "crc32", path), path + " (" + name + ".crc32)")};
  }
  return record;
}

std::string checkpoint_path(const std::string& dir, CheckpointId id) { return dir + "/" + id.name(); }

void write_checkpoint(const std::string& dir, CheckpointId id,
                      const std::function<void(const core::OutputDir&)>& write_files, nlohmann::json state, int keep) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw Error::in_argument("--checkpoint-dir", "cannot create '" + dir + "': " + ec.message());
  core::OutputDir out(checkpoint_path(dir, id), /*overwrite=*/true, "--checkpoint-dir");
  write_files(out);
  state["epochs_done"] = id.epochs;
  if (id.steps > 0) state["steps_done"] = id.steps;
  state["files"] = nlohmann::json::object();
  for (const auto& entry : fs::directory_iterator(out.path())) {
    const std::string name = entry.path().filename().string();
    const FileDigest digest = file_digest(entry.path().string());
    state["files"][name] = {{"bytes", digest.bytes}, {"crc32", digest.crc32}};
  }
  core::write_text_file(out.file("state.json"), state.dump(2) + "\n");
  out.commit();
  core::write_text_file(dir + "/latest", id.name() + "\n");
  if (keep > 0) prune_checkpoints(dir, id, keep);
}

namespace {

// The checkpoint DIR/latest names, where it names one.
std::optional<CheckpointId> latest_checkpoint(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_regular_file(dir + "/latest", ec)) return std::nullopt;
  std::string name = core::read_text_file(dir + "/latest");
  while (!name.empty() && (name.back() == '\n' || name.back() == ' ')) name.pop_back();
  return parse_checkpoint_name(name);
}

// The rank-<k> folders of DIR (full-graph training's per-rank checkpoints).
std::vector<std::string> rank_folders(const std::string& dir) {
  std::vector<std::string> folders;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_directory() && name.starts_with("rank-") && name.size() > 5 &&
        name.find_first_not_of("0123456789", 5) == std::string::npos)
      folders.push_back(entry.path().string());
  }
  return folders;
}

}  // namespace

bool holds_checkpoints(const std::string& dir) {
  std::error_code ec;
  if (fs::exists(dir + "/latest", ec) || !checkpoint_ids(dir).empty()) return true;
  for (const std::string& folder : rank_folders(dir))
    if (fs::exists(folder + "/latest", ec) || !checkpoint_ids(folder).empty()) return true;
  return false;
}

void check_checkpoint_target(const std::string& dir, bool resume, bool overwrite) {
  if (dir.empty() || resume || overwrite || !holds_checkpoints(dir)) return;
  throw Error::in_argument("--checkpoint-dir",
                           "'" + dir +
                               "' holds the checkpoints of an earlier run: pass --resume to continue it, "
                               "--overwrite to replace them, or give another folder");
}

void remove_checkpoints(const std::string& dir) {
  for (const CheckpointId id : checkpoint_ids(dir))
    if (!core::remove_tree(checkpoint_path(dir, id)))
      throw Error::in_file(checkpoint_path(dir, id), 0, std::string("cannot remove: ") + std::strerror(errno));
  std::error_code ec;
  fs::remove(dir + "/latest", ec);
}

std::optional<CheckpointId> newest_intact_checkpoint(const std::string& dir, CheckpointId at_most) {
  if (const auto latest = latest_checkpoint(dir); latest && *latest < at_most) at_most = *latest;
  std::string newest_damage;
  for (const CheckpointId id : checkpoint_ids(dir)) {
    if (id > at_most) continue;
    const std::string damage = checkpoint_damage(checkpoint_path(dir, id));
    if (damage.empty()) return id;
    spdlog::warn("checkpoint {} is damaged ({}): trying an older one", checkpoint_path(dir, id), damage);
    if (newest_damage.empty()) newest_damage = checkpoint_path(dir, id) + ": " + damage;
  }
  if (!newest_damage.empty())
    throw Error::in_argument("--resume", "no intact checkpoint in " + dir + " (" + newest_damage + ")");
  return std::nullopt;
}

}  // namespace loom::format
