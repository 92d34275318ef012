// `loom analyze cache PARTS`: remote rows per epoch of each static cache policy at each alpha
// (feature::analyze_cache). `loom analyze prefetch PARTS`: the fewest remote rows a prefetch buffer
// of F x halo rows could leave, by the best static choice and by Belady's MIN
// (feature::analyze_prefetch_bound). Neither trains; a table on stdout and, with --json, a file.
#include <cstdio>
#include <memory>

#include "loom/cli/commands.hpp"
#include "loom/cli/typed_options.hpp"
#include "loom/core/fs.hpp"
#include "loom/feature/cache_analysis.hpp"
#include "loom/feature/prefetch_bound.hpp"
#include "loom/partition/store_verification.hpp"

namespace loom::cli {

namespace {

// --json PATH and --overwrite: where the results also go, checked before the analysis runs.
struct JsonOutput {
  std::string path;
  bool overwrite = false;

  void add_to(CLI::App& sub) {
    sub.add_option("--json", path, "Also write the results as JSON here");
    sub.add_flag("--overwrite", overwrite, "Replace the --json file if it exists");
  }
  void check() const {
    if (!path.empty()) core::check_output_target(path, overwrite, "--json");
  }
};

struct AnalyzeFlags {
  feature::CacheAnalysisOptions options;
  JsonOutput json;
};

struct PrefetchFlags {
  feature::PrefetchBoundOptions options;
  JsonOutput json;
};

// Checks the --json output and the store's digests, runs `analyze` and prints its table (and
// writes its JSON).
template <class Analyze>
int run_analysis(const JsonOutput& json, const std::string& store, Analyze&& analyze) {
  json.check();
  partition::verify_store(partition::mapped_folders(store));
  const auto result = analyze();
  std::fputs(result.table().c_str(), stdout);
  if (!json.path.empty()) core::write_text_file(json.path, result.to_json().dump(2) + "\n");
  return 0;
}

void add_analyze_prefetch(CLI::App& analyze, Action& action) {
  auto flags = std::make_shared<PrefetchFlags>();
  auto& o = flags->options;
  auto* sub =
      analyze.add_subcommand("prefetch", "Fewest remote rows a prefetch buffer could leave (Belady bound, Rudder)");
  sub->add_option("store", o.store, "Partitioned store (one part per rank of the training it models)")->required();
  add_fanouts_option(*sub, "--fanouts", o.fanouts, "Neighbours sampled per layer, hop from the seeds first");
  sub->add_option("--batch-size", o.batch_size, "Seeds per step and rank")->capture_default_str();
  sub->add_option("--prefetch", o.fractions, "Buffer sizes as fractions of each rank's halo (comma-separated)")
      ->delimiter(',')
      ->capture_default_str();
  sub->add_option("--epochs", o.epochs, "Epochs replayed")->capture_default_str();
  sub->add_option("--seed", o.seed, "Seed of the training run being modelled")->capture_default_str();
  sub->add_option("--lookahead", o.lookahead, "Minibatches the online lookahead policy sees ahead")
      ->capture_default_str();
  flags->json.add_to(*sub);
  sub->callback([&action, flags] {
    action = [flags] {
      return run_analysis(flags->json, flags->options.store,
                          [&] { return feature::analyze_prefetch_bound(flags->options); });
    };
  });
}

}  // namespace

void add_analyze_command(CLI::App& app, Action& action) {
  auto* analyze = app.add_subcommand("analyze", "Analyses that need no training");
  analyze->require_subcommand(1);
  auto flags = std::make_shared<AnalyzeFlags>();
  auto& o = flags->options;
  auto* sub = analyze->add_subcommand("cache", "Remote rows per epoch of static cache policies (SALIENT++)");
  sub->add_option("store", o.store, "Partitioned store (one part per rank of the training it models)")->required();
  add_fanouts_option(*sub, "--fanouts", o.fanouts, "Neighbours sampled per layer, hop from the seeds first");
  sub->add_option("--batch-size", o.batch_size, "Seeds per step and rank")->capture_default_str();
  sub->add_option("--alpha", o.alphas, "Cache sizes: rows per rank = alpha * N / K (comma-separated)")
      ->delimiter(',')
      ->capture_default_str();
  add_enum_list_option(*sub, "--policies", o.policies, feature::kCachePolicyNames, "Policies to rank the cache by");
  sub->add_option("--epochs", o.epochs, "Epochs measured (and sampled by the oracle)")->capture_default_str();
  sub->add_option("--simulation-epochs", o.simulation_epochs, "Epochs the simulation policy samples (0 = --epochs)")
      ->capture_default_str();
  sub->add_option("--seed", o.seed, "Seed of the training run being modelled")->capture_default_str();
  flags->json.add_to(*sub);
  sub->callback([&action, flags] {
    action = [flags] {
      return run_analysis(flags->json, flags->options.store, [&] { return feature::analyze_cache(flags->options); });
    };
  });
  add_analyze_prefetch(*analyze, action);
}

}  // namespace loom::cli
