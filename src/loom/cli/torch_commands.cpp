#include "loom/cli/torch_commands.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>

#include "loom/core/error.hpp"

namespace loom::cli {

namespace {

// Replaces this process with loom-torch from this binary's folder; returns only by throwing.
int exec_torch_binary(char** argv) {
  const std::filesystem::path torch = std::filesystem::read_symlink("/proc/self/exe").parent_path() / "loom-torch";
  ::execv(torch.c_str(), argv);
  throw Error(
      fmt::format("cannot start {} (where loom runs train and fullgraph): {}", torch.string(), std::strerror(errno)));
}

void add_entry(CLI::App& app, Action& action, char** argv, const char* name, const char* summary) {
  auto* sub = app.add_subcommand(name, summary);
  // Everything after the command's name, --help included, is loom-torch's to parse (none of it
  // falls through to loom's own options).
  sub->set_help_flag();
  sub->prefix_command();
  sub->fallthrough(false);
  sub->callback([&action, argv] { action = [argv] { return exec_torch_binary(argv); }; });
}

}  // namespace

void add_torch_command_entries(CLI::App& app, Action& action, char** argv) {
  add_entry(app, action, argv, "train", kTrainSummary);
  add_entry(app, action, argv, "fullgraph", kFullgraphSummary);
  add_entry(app, action, argv, "plan", kPlanSummary);
}

}  // namespace loom::cli
