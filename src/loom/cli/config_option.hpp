// `--config FILE.toml` for any subcommand (train, fullgraph, embed text|deepwalk|node2vec): every
// long option of the subcommand can come from the file (key = the long name without "--", '_' or
// '-' alike; flags take true/false), at the top level or under a [<subcommand>] section; options
// given on the command line override the file. An unknown key, a section of another command, a
// value of the wrong TOML type or one the option rejects is a usage error (exit status 2) naming
// the key, the file and the line.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace loom::cli {

// Adds --config to `sub` and applies the file when `sub` has been parsed (before its callback).
// `shared_with`: a command whose options `sub` takes too (`loom plan` reads `loom train`'s files),
// whose [section] is then `sub`'s as well.
void add_config_option(CLI::App& sub, const std::string& shared_with = "");

}  // namespace loom::cli
