#include "loom/train/checkpoint_state.hpp"

#include "loom/core/error.hpp"
#include "loom/core/json_number.hpp"

namespace loom::train {

namespace {

void expect(bool ok, const std::string& path, const std::string& what) {
  if (!ok) format::invalid_checkpoint_state(path, what);
}

void check_selection(const nlohmann::json& selection, const std::string& path) {
  expect(selection.is_object(), path, "\"selection\" is not an object");
  const auto best = selection.find("best_epoch");
  if (best == selection.end()) return;
  if (core::json_int<int>(*best, path + " (selection.best_epoch)") == 0) return;
  for (const char* key : {"best_valid_score", "best_valid_loss"}) {
    const auto value = selection.find(key);
    expect(value != selection.end() && value->is_number(), path, std::string("selection.") + key + " is not a number");
  }
}

}  // namespace

CheckpointState parse_checkpoint_state(const std::string& text, const std::string& path) {
  CheckpointState state;
  static_cast<format::CheckpointRecord&>(state) = format::parse_checkpoint_record(text, path);
  const nlohmann::json& s = state.json;
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
  if (const auto epochs = s.find("epochs"); epochs != s.end()) {
    expect(epochs->is_array(), path, "\"epochs\" is not an array");
    for (const auto& record : *epochs) expect(record.is_object(), path, "an epoch record is not an object");
  }
  if (const auto selection = s.find("selection"); selection != s.end()) check_selection(*selection, path);
  if (const auto log = s.find("metrics_log"); log != s.end())
    state.metrics_log = core::LogPrefix::from_json(*log, path);
  return state;
}

}  // namespace loom::train
