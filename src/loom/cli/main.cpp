// `loom`: command-line entry point. Parses the subcommand, runs it, and turns a loom::Error
// (or any exception) into one message on stderr and exit status 1; usage errors exit with 2.
// Under mpirun every rank parses the same command line: only rank 0 prints a usage error.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <exception>

#include <CLI/CLI.hpp>

#include "loom/cli/commands.hpp"
#include "loom/comm/watchdog.hpp"
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
  double comm_timeout = loom::comm::watchdog_timeout();
  app.add_option("--comm-timeout", comm_timeout,
                 "Seconds without a heartbeat from a neighbouring rank before the job ends naming it (0 = never)")
      ->capture_default_str();

  loom::cli::Action action;
  loom::cli::add_commands(app, action);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (is_secondary_rank()) return e.get_exit_code() == 0 ? 0 : 2;
    return app.exit(e) == 0 ? 0 : 2;
  }
  try {
    loom::core::init_logging(log_level);
    loom::comm::set_watchdog_timeout(comm_timeout);
    return action ? action() : 0;
  } catch (const loom::Error& e) {
    std::fprintf(stderr, "loom: error: %s\n", e.what());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "loom: error: %s\n", e.what());
  }
  return 1;
}
