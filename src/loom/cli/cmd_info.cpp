// `loom info DIR [--json]`: a summary of a graph store or of a partitioned store (global counts,
// id mapping, edge cut, balance and a per-part table).
#include <memory>

#include <fmt/format.h>

#include "loom/cli/commands.hpp"
#include "loom/graph/info.hpp"
#include "loom/partition/partitioned_info.hpp"

namespace loom::cli {

namespace {
nlohmann::json summary_of(const std::string& dir) {
  if (graph::store_kind(dir) == graph::StoreKind::kPartitioned)
    return partition::partitioned_summary(partition::PartitionedStore::open(dir));
  return graph::store_summary(graph::GraphStore::open(dir));
}

int run_info(const std::string& dir, bool as_json) {
  const auto summary = summary_of(dir);
  fmt::print("{}", as_json ? summary.dump(2) + "\n" : graph::format_store_summary(summary));
  return 0;
}
}  // namespace

void add_info_command(CLI::App& app, Action& action) {
  auto dir = std::make_shared<std::string>();
  auto as_json = std::make_shared<bool>(false);
  auto* sub = app.add_subcommand("info", "Summarise a graph store or partitioned store");
  sub->add_option("dir", *dir, "Store directory")->required();
  sub->add_flag("--json", *as_json, "Print the summary as JSON");
  sub->callback([&action, dir, as_json] { action = [dir, as_json] { return run_info(*dir, *as_json); }; });
}

}  // namespace loom::cli
