#include "loom/train/checkpoint_state.hpp"

#include "loom/core/error.hpp"
#include "loom/core/json_number.hpp"

namespace loom::train {

namespace {

const nlohmann::json& member(const nlohmann::json& object, const char* key, const std::string& path) {
  const auto it = object.find(key);
  if (it == object.end()) throw Error::in_file(path, 0, std::string("invalid checkpoint state: no \"") + key + "\"");
  return *it;
}

void expect(bool ok, const std::string& path, const std::string& what) {
  if (!ok) throw Error::in_file(path, 0, "invalid checkpoint state: " + what);
}

void check_selection(const nlohmann::json& selection, const std::string& path) {
  expect(selection.is_object(), path, "\"selection\" is not an object");
  const auto best = selection.find("best_epoch");
  if (best == selection.end()) return;
  if (core::json_int<int>(*best, path + " (selection.best_epoch)") == 0) return;
  for (const char* key : {"best_valid_score", "best_valid_loss"})
    expect(member(selection, key, path).is_number(), path, std::string("selection.") + key + " is not a number");
}

}  // namespace

CheckpointState parse_checkpoint_state(const std::string& text, const std::string& path) {
  CheckpointState state;
  try {
    state.json = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw Error::in_file(path, 0, std::string("invalid checkpoint state: ") + e.what());
  }
  const nlohmann::json& s = state.json;
  expect(s.is_object(), path, "not a JSON object");
  state.epochs_done = core::json_int<int>(member(s, "epochs_done", path), path + " (epochs_done)");
  expect(state.epochs_done >= 0, path, "negative epochs_done");
  if (const auto steps = s.find("steps_done"); steps != s.end()) {
    state.steps_done = core::json_int<int>(*steps, path + " (steps_done)");
    expect(state.steps_done >= 0, path, "negative steps_done");
  }
  if (const auto totals = s.find("epoch_totals"); totals != s.end()) {
    expect(totals->is_array(), path, "\"epoch_totals\" is not an array");
    for (const auto& rank : *totals) {
      expect(rank.is_array(), path, "an entry of \"epoch_totals\" is not an array");
      std::vector<double>& values = state.epoch_totals.emplace_back();
      for (const auto& value : rank) {
        expect(value.is_number(), path, "\"epoch_totals\" holds something other than a number");
        values.push_back(value.get<double>());
      }
    }
  }
  if (const auto fingerprint = s.find("fingerprint"); fingerprint != s.end()) {
    expect(fingerprint->is_string(), path, "\"fingerprint\" is not a string");
    state.fingerprint = fingerprint->get<std::string>();
  }
  const nlohmann::json& files = member(s, "files", path);
  expect(files.is_object(), path, "\"files\" is not an object");
  for (const auto& [name, digest] : files.items()) {
    expect(!name.empty() && name != "." && name != ".." && name.find('/') == std::string::npos &&
               name.find('\0') == std::string::npos,
           path, "\"files\" names '" + name.substr(0, 40) + "', not a file beside state.json");
    expect(digest.is_object(), path, "the digest of " + name + " is not an object");
    state.files[name] = {core::json_int<std::uint64_t>(member(digest, "bytes", path), path + " (" + name + ".bytes)"),
                         core::json_int<std::uint64_t>(member(digest, "crc32", path), path + " (" + name + ".crc32)")};
  }
  if (const auto epochs = s.find("epochs"); epochs != s.end()) {
    expect(epochs->is_array(), path, "\"epochs\" is not an array");
    for (const auto& record : *epochs) expect(record.is_object(), path, "an epoch record is not an object");
  }
  if (const auto selection = s.find("selection"); selection != s.end()) check_selection(*selection, path);
  return state;
}

}  // namespace loom::train
