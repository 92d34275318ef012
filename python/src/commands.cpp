// loom.run(args): any `loom` command run in this process by the CLI's own parser and entry points
// (loom::cli::add_commands), so a Python caller gets the same options, defaults and checks. A
// usage error or a failed command raises loom.Error with the message the CLI prints; --help prints
// the help and returns 0. python/loom/commands.py builds generate / import / partition on it.
#include <algorithm>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "loom/cli/commands.hpp"
#include "loom/core/error.hpp"

namespace loom::python {

namespace {

int run_command(std::vector<std::string> args) {
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
    throw Error(command + ": " + e.what());
  }
  if (!action) return 0;
  py::gil_scoped_release release;
  return action();
}

}  // namespace

void bind_commands(py::module_& m) {
  m.def("run", &run_command, py::arg("args"),
        "runs `loom ARGS...` in this process (e.g. ['generate', 'sbm', '-o', 'g', '--nodes', '1000']) and returns "
        "its exit status; a usage error or a failure raises loom.Error with the CLI's message");
}

}  // namespace loom::python
