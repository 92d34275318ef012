// The checkpoint options of every trainer (`loom train`, `loom fullgraph`, `loom embed`):
// --checkpoint-dir, --checkpoint-every (epochs), --keep-checkpoints and --resume.
#pragma once

#include <limits>
#include <string>

#include <CLI/CLI.hpp>

namespace loom::cli {

inline void add_checkpoint_options(CLI::App& sub, std::string& dir, int& every, int& keep, bool& resume,
                                   const std::string& dir_help) {
  sub.add_option("--checkpoint-dir", dir, dir_help);
  sub.add_option("--checkpoint-every", every, "Checkpoint every N epochs (0: only when stopped by SIGTERM/SIGINT)")
      ->capture_default_str();
  sub.add_option("--keep-checkpoints", keep, "Keep only the newest N checkpoints (0 = all)")
      ->check(CLI::Range(0, std::numeric_limits<int>::max()))
      ->capture_default_str();
  sub.add_flag("--resume", resume, "Continue from the newest checkpoint in --checkpoint-dir");
}

}  // namespace loom::cli
