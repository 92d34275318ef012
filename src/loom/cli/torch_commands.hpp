// The commands that need LibTorch (`train`, `fullgraph`) run in a second binary, `loom-torch`
// (the whole command line, LibTorch's commands included), built beside `loom`. LibTorch's static
// initialisers cost every process that links it about 0.8 s of start-up, which `loom generate`,
// `import`, `partition`, `embed`, `eval`, `walk`, `analyze` and `info` then do without (0.01 s).
// add_torch_command_entries lists the two in `loom --help`; choosing one replaces the process
// with loom-torch on the same arguments (exec: the same process id, environment and exit status,
// so mpirun, signals and scripts see one process; MPI has not started yet).
#pragma once

#include <CLI/CLI.hpp>

#include "loom/cli/commands.hpp"

namespace loom::cli {

// `argv`: the process's own, handed on unchanged.
void add_torch_command_entries(CLI::App& app, Action& action, char** argv);

}  // namespace loom::cli
