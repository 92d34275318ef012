#include "loom/cli/commands.hpp"

namespace loom::cli {

void add_base_commands(CLI::App& app, Action& action) {
  add_info_command(app, action);
  add_check_command(app, action);
  add_partition_command(app, action);
  CLI::App* import_cmd = app.add_subcommand("import", "Import a graph into a Loom graph store");
  import_cmd->require_subcommand(1);
  add_import_ogb(*import_cmd, action);
  add_import_edgelist(*import_cmd, action);
  add_import_npy(*import_cmd, action);
  add_import_mag240m(*import_cmd, action);
  add_import_fashion_mnist(*import_cmd, action);
  add_generate_command(app, action);
  add_embed_command(app, action);
  add_eval_command(app, action);
  add_embed_graph_commands(app, action);
  add_eval_graph_commands(app, action);
  add_walk_command(app, action);
  add_analyze_command(app, action);
}

}  // namespace loom::cli
