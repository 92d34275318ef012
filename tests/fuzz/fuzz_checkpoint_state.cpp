// Checkpoint state.json, as --resume reads it: parsed and checked, then read the way the trainers
// read it (epochs done, records, the model selection's best epoch and scores), which must not
// throw anything but a loom::Error once the state passed the check.
#include "fuzz_input.hpp"
#include "loom/train/checkpoint_state.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  loom::fuzz::expect_parse_or_error([&] {
    const loom::train::CheckpointState state = loom::train::parse_checkpoint_state(text, "epoch-1/state.json");
    const nlohmann::json& s = state.json;
    static_cast<void>(s.at("epochs_done").get<int>());
    static_cast<void>(s.value("epochs", std::vector<nlohmann::json>{}));
    const nlohmann::json selection = s.value("selection", nlohmann::json::object());
    if (selection.value("best_epoch", 0) != 0) {
      static_cast<void>(selection.at("best_valid_score").get<double>());
      static_cast<void>(selection.at("best_valid_loss").get<double>());
    }
  });
  return 0;
}
