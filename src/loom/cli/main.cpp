// `loom`: command-line entry point. Parses the subcommand, runs it, and turns a loom::Error
// (or any exception) into one message on stderr and exit status 1; usage errors exit with 2.
// Under mpirun every rank parses the same command line: only rank 0 prints a usage error.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <exception>

#include <CLI/CLI.hpp>

#include "loom/cli/commands.hpp"
#include "loom/core/error.hpp"
#include "loom/core/log.hpp"

namespace {

// True on ranks other than 0 of an mpirun job (read before MPI starts, from the launcher's
// environment: Open MPI, or any PMI launcher).
bool is_secondary_rank() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMI_RANK"}) {
    if (const char* rank = std::getenv(name)) return std::string(rank) != "0";
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Loom: GNN and embedding training on partitioned graphs"};
  app.require_subcommand(1);
  std::string log_level = "info";
  app.add_option("--log-level", log_level, "trace|debug|info|warn|error|off")->capture_default_str();

  loom::cli::Action action;
  loom::cli::add_info_command(app, action);
  loom::cli::add_partition_command(app, action);
  CLI::App* import_cmd = app.add_subcommand("import", "Import a graph into a Loom graph store");
  import_cmd->require_subcommand(1);
  loom::cli::add_import_ogb(*import_cmd, action);
  loom::cli::add_import_edgelist(*import_cmd, action);
  loom::cli::add_import_npy(*import_cmd, action);
  loom::cli::add_import_fashion_mnist(*import_cmd, action);
  loom::cli::add_generate_command(app, action);
  loom::cli::add_embed_command(app, action);
  loom::cli::add_eval_command(app, action);
  loom::cli::add_embed_graph_commands(app, action);
  loom::cli::add_eval_graph_commands(app, action);
  loom::cli::add_walk_command(app, action);
  loom::cli::add_train_command(app, action);
  loom::cli::add_fullgraph_command(app, action);
  loom::cli::add_analyze_command(app, action);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (is_secondary_rank()) return e.get_exit_code() == 0 ? 0 : 2;
    return app.exit(e) == 0 ? 0 : 2;
  }
  try {
    loom::core::init_logging(log_level);
    return action ? action() : 0;
  } catch (const loom::Error& e) {
    std::fprintf(stderr, "loom: error: %s\n", e.what());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "loom: error: %s\n", e.what());
  }
  return 1;
}
