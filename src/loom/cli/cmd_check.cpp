// `loom check STORE [--json]`: every file of a graph store or partitioned store against its
// recorded digest, and every invariant Loom relies on (partition/store_checker.hpp). Exit status
// 0 when the store holds, 1 when it does not (each problem named on stderr).
#include <cstdio>
#include <memory>

#include <fmt/format.h>

#include "loom/cli/commands.hpp"
#include "loom/core/memory.hpp"
#include "loom/partition/store_checker.hpp"

namespace loom::cli {

namespace {

int run_check(const std::string& dir, bool as_json) {
  const partition::StoreCheck report = partition::check_store(dir, /*progress=*/!as_json);
  if (as_json) {
    fmt::print("{}\n", report.to_json().dump(2));
    return report.ok() ? 0 : 1;
  }
  for (const auto& problem : report.problems) fmt::print(stderr, "loom: problem: {}\n", problem);
  for (const auto& folder : report.undigested)
    fmt::print(stderr,
               "loom: note: {}/meta.json records no digests (written before they were); its files were not verified\n",
               folder);
  fmt::print("{}: {} ({} files, {} digested, {:.1f} s)\n", dir,
             report.ok() ? "ok, every digest and invariant holds"
                         : fmt::format("{} problem{}", report.problems.size(), report.problems.size() == 1 ? "" : "s"),
             report.files, core::human_bytes(static_cast<double>(report.bytes)), report.seconds);
  return report.ok() ? 0 : 1;
}

}  // namespace

void add_check_command(CLI::App& app, Action& action) {
  auto dir = std::make_shared<std::string>();
  auto as_json = std::make_shared<bool>(false);
  auto* sub = app.add_subcommand("check", "Verify a store's digests and invariants (exit 1 with each problem named)");
  sub->add_option("store", *dir, "Graph store or partitioned store")->required();
  sub->add_flag("--json", *as_json, "Print the report as JSON");
  sub->callback([&action, dir, as_json] { action = [dir, as_json] { return run_check(*dir, *as_json); }; });
}

}  // namespace loom::cli
