// `loom-torch`: the whole command line, LibTorch's commands included (entry.hpp); `loom` starts it
// for `train` and `fullgraph` (torch_commands.hpp).
#include "loom/cli/commands.hpp"
#include "loom/cli/entry.hpp"

int main(int argc, char** argv) { return loom::cli::run_cli(argc, argv, loom::cli::add_commands); }
