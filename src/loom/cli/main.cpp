// `loom`: command-line entry point (entry.hpp), without LibTorch: `train` and `fullgraph` run in
// `loom-torch` beside it (torch_commands.hpp).
#include "loom/cli/commands.hpp"
#include "loom/cli/entry.hpp"
#include "loom/cli/torch_commands.hpp"

int main(int argc, char** argv) {
  return loom::cli::run_cli(argc, argv, [argv](CLI::App& app, loom::cli::Action& action) {
    loom::cli::add_base_commands(app, action);
    loom::cli::add_torch_command_entries(app, action, argv);
  });
}
