// `loom info DIR [--json]`: a summary of a graph store or of a partitioned store (global counts,
// id mapping, edge cut, balance and a per-part table), after verifying the store's digests where
// that is quick (a small store).
#include <memory>

#include <fmt/format.h>

#include "loom/cli/commands.hpp"
#include "loom/graph/info.hpp"
#include "loom/format/digest.hpp"
#include "loom/partition/partitioned_info.hpp"
#include "loom/partition/store_verification.hpp"

namespace loom::cli {

namespace {
nlohmann::json summary_of(const std::string& dir) {
  if (graph::store_kind(dir) == graph::StoreKind::kPartitioned)
    return partition::partitioned_summary(partition::PartitionedStore::open(dir));
  return graph::store_summary(graph::GraphStore::open(dir));
}

// Verifies the store's digests where they cover at most kVerifyAtOnceBytes (a summary of a large
// store stays quick: `loom check` verifies it); returns whether it did.
bool verify_if_small(const std::string& dir) {
  const auto folders = partition::mapped_folders(dir);
  std::int64_t bytes = 0;
  for (const auto& folder : folders) bytes += format::digested_bytes(folder);
  if (!format::digest_verification() || bytes > partition::kVerifyAtOnceBytes) return false;
  partition::verify_store(folders);
  return true;
}

int run_info(const std::string& dir, bool as_json) {
  auto summary = summary_of(dir);
  const bool verified = verify_if_small(dir);
  if (as_json) {
    summary["digests_verified"] = verified;
    fmt::print("{}\n", summary.dump(2));
    return 0;
  }
  fmt::print("{}", graph::format_store_summary(summary));
  if (!verified) fmt::print("digests: not verified here (`loom check {}` verifies every file)\n", dir);
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
