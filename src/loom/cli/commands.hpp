// Each `loom` subcommand lives in its own cmd_<name>.cpp and adds itself to the app through
// one of these functions; main.cpp calls them all. A command only parses options into a plain
// struct and, when selected, sets `action` to a call of a library entry point (so tests and
// benchmarks can call the same code). main() runs the action after parsing and logging set-up.
#pragma once

#include <functional>

#include <CLI/CLI.hpp>

namespace loom::cli {

// Returns the process exit status.
using Action = std::function<int()>;

void add_info_command(CLI::App& app, Action& action);

}  // namespace loom::cli
