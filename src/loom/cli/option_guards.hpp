// Checks that hold for every command's options, added to the parsed tree before parsing so that a
// bad value is a usage error (exit status 2) naming the option, whatever the command:
//   - a floating-point option refuses a value that is not finite ("inf", "nan", "1e999"): rates,
//     fractions and sizes are never meant to be infinite, and one that is trains to garbage;
//   - an integer option refuses a leading zero ("010", octal to strtoll), a value beyond 64 bits,
//     and, when unsigned (--seed), a negative one ("-1" would wrap to 2^64 - 1);
//   - --threads refuses a negative count or more than core::max_threads() (a few per core).
#pragma once

#include <CLI/CLI.hpp>

namespace loom::cli {

void add_option_guards(CLI::App& app);

}  // namespace loom::cli
