// Checks that hold for every command's options, added to the parsed tree before parsing so that a
// bad value is a usage error (exit status 2) naming the option, whatever the command:
//   - a floating-point option refuses a value that is not finite ("inf", "nan", "1e999"): rates,
//     fractions and sizes are never meant to be infinite, and one that is trains to garbage;
//   - --threads refuses a negative count or more than core::max_threads() (a few per core).
#pragma once

#include <CLI/CLI.hpp>

namespace loom::cli {

void add_option_guards(CLI::App& app);

}  // namespace loom::cli
