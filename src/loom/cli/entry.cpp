#include "loom/cli/entry.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <new>
#include <string>
#include <thread>

#include "loom/cli/option_guards.hpp"
#include "loom/comm/watchdog.hpp"
#include "loom/format/digest.hpp"
#include "loom/core/log.hpp"
#include "loom/core/stop_signal.hpp"

namespace loom::cli {

namespace {

// True on ranks other than 0 of an mpirun job (read before MPI starts, from the launcher's
// environment: Open MPI, or any PMI launcher).
bool is_secondary_rank() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMI_RANK"}) {
    if (const char* rank = std::getenv(name)) return std::string(rank) != "0";
  }
  return false;
}

// A usage error on a secondary rank: rank 0 parses the same line and prints the message, but a
// rank that exits non-zero first makes mpirun end the job, which can kill rank 0 before it has
// printed (seen under ASan, whose start-up is slow). So a secondary rank waits for mpirun to end
// it once rank 0 has exited; the wait is bounded for launchers that do not end the job.
int secondary_rank_usage_error() {
  std::this_thread::sleep_for(std::chrono::seconds(10));
  return 2;
}

// LibTorch's errors carry the C++ frames that raised them after their message: users get the message.
std::string without_backtrace(std::string what) {
  const auto frames = what.find("\nException raised from");
  if (frames != std::string::npos) what.resize(frames);
  return what;
}

// "train", "import ogb", ...: the subcommands the line chose.
std::string chosen_command(const CLI::App& app) {
  std::string path;
  for (const CLI::App* sub = &app; (sub = sub->get_subcommands().empty() ? nullptr : sub->get_subcommands().front());)
    path += (path.empty() ? "" : " ") + sub->get_name();
  return path;
}

}  // namespace

int run_cli(int argc, char** argv, const std::function<void(CLI::App&, Action&)>& add) {
  CLI::App app{"Loom: GNN and embedding training on partitioned graphs"};
  app.require_subcommand(1);
  std::string log_level = "info";
  app.add_option("--log-level", log_level, "trace|debug|info|warn|error|off")->capture_default_str();
  bool no_verify = false;
  app.add_flag("--no-verify", no_verify,
               "Do not verify a store's files against the digests its meta.json records before using them");
  app.fallthrough();  // `loom train DIR --no-verify` as well as `loom --no-verify train DIR`
  double comm_timeout = comm::watchdog_timeout();
  app.add_option("--comm-timeout", comm_timeout,
                 "Seconds without a heartbeat from a neighbouring rank before the job ends naming it (0 = never)")
      ->capture_default_str();

  Action action;
  add(app, action);
  add_option_guards(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (is_secondary_rank()) return e.get_exit_code() == 0 ? 0 : secondary_rank_usage_error();
    return app.exit(e) == 0 ? 0 : 2;
  }
  try {
    core::install_cleanup_handlers();
    core::init_logging(log_level);
    comm::set_watchdog_timeout(comm_timeout);
    format::set_digest_verification(!no_verify);
    return action ? action() : 0;
  } catch (const std::bad_alloc&) {  // sizes no check foresaw: name the command at least
    std::fprintf(stderr,
                 "loom: error: out of memory in `loom %s`: an allocation failed; lower what the options or "
                 "the input make it hold (--memory-limit makes the trainers check their plan against a limit)\n",
                 chosen_command(app).c_str());
  } catch (const std::exception& e) {  // loom::Error and any other
    std::fprintf(stderr, "loom: error: %s\n", without_backtrace(e.what()).c_str());
  }
  return 1;
}

}  // namespace loom::cli
