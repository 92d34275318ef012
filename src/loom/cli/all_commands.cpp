#include "loom/cli/commands.hpp"

namespace loom::cli {

void add_commands(CLI::App& app, Action& action) {
  add_base_commands(app, action);
  add_train_command(app, action);
  add_fullgraph_command(app, action);
  add_plan_command(app, action);
}

}  // namespace loom::cli
