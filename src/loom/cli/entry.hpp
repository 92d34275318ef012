// `loom`'s command line, shared by its two binaries (`loom` and `loom-torch`): the global options
// (--log-level, --comm-timeout), the subcommands `add` registers, and the exit statuses: a usage
// error exits 2 (under mpirun every rank parses the same line and only rank 0 prints it); a
// loom::Error or any other exception is one message on stderr (LibTorch's without its backtrace; an
// allocation that failed as "out of memory" naming the command) and exit status 1; otherwise the
// chosen command's status.
#pragma once

#include <functional>

#include <CLI/CLI.hpp>

#include "loom/cli/commands.hpp"

namespace loom::cli {

int run_cli(int argc, char** argv, const std::function<void(CLI::App&, Action&)>& add);

}  // namespace loom::cli
