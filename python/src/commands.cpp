// loom.run(args): any `loom` command run in this process by the CLI's own parser and entry points
// (loom::cli::add_commands), so a Python caller gets the same options, defaults and checks. A
// usage error or a failed command raises loom.Error with the message the CLI prints; --help prints
// the help and returns 0. MPI is brought up once for the process (python_world) before the command
// runs, so the command borrows it and any number of commands (and Loaders) may run in one process;
// it is finalised at exit. python/loom/commands.py builds generate / import / partition on it.
#include <algorithm>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "loom/cli/commands.hpp"
#include "loom/comm/mpi_session.hpp"
#include "loom/core/error.hpp"

namespace loom::python {

namespace {

// How errors name options: as the caller wrote them, --like-this (loom.run's arguments) or
// like_this (the keyword options of loom.generate / import_graph / partition).
enum class OptionNames { kCli, kPython };

[[noreturn]] void raise_error(const Error& e, OptionNames names) {
  if (names == OptionNames::kPython) throw e;  // the translator names options by keyword (errors.cpp)
  raise_with_cli_message(e);
}

int run_command(std::vector<std::string> args, const std::string& option_names) {
  const OptionNames names = option_names == "python" ? OptionNames::kPython : OptionNames::kCli;
  LOOM_CHECK_ARG(option_names == "python" || option_names == "cli", "option_names", "want cli or python, got '{}'",
                 option_names);
  CLI::App app{"Loom: GNN and embedding training on partitioned graphs", "loom"};
  app.require_subcommand(1);
  cli::Action action;
  cli::add_commands(app, action);
  const std::string command = "loom " + (args.empty() ? std::string() : args.front());
  std::reverse(args.begin(), args.end());  // CLI11 takes the arguments last first
  try {
    app.parse(args);
  } catch (const CLI::CallForHelp&) {
    py::print(app.help());
    return 0;
  } catch (const CLI::CallForAllHelp&) {
    py::print(app.help("", CLI::AppFormatMode::All));
    return 0;
  } catch (const CLI::ParseError& e) {
    raise_error(Error(command + ": " + e.what()), names);
  }
  if (!action) return 0;
  python_world();  // the command's MPI session borrows this process's (comm::run_job)
  try {
    py::gil_scoped_release release;
    return action();
  } catch (const Error& e) {
    raise_error(e, names);
  }
}

}  // namespace

void bind_commands(py::module_& m) {
  comm::set_agreed_failures(comm::AgreedFailures::kRethrow);  // loom.run raises them as loom.AgreedError
  m.def("run", &run_command, py::arg("args"), py::arg("option_names") = "cli",
        "runs `loom ARGS...` in this process (e.g. ['generate', 'sbm', '-o', 'g', '--nodes', '1000']) and returns "
        "its exit status; a usage error or a failure raises loom.Error with the CLI's message (options named "
        "--like-this, or like_this with option_names='python')");
}

}  // namespace loom::python
