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

namespace loom::cli {

namespace {

struct AnalyzeFlags {
  feature::CacheAnalysisOptions options;
  std::string json_path;
};

struct PrefetchFlags {
  feature::PrefetchBoundOptions options;
  std::string json_path;
};

template <class Result>
int print_result(const Result& result, const std::string& json_path) {
  std::fputs(result.table().c_str(), stdout);
  if (!json_path.empty()) {
    core::AtomicFile file(json_path);
    const std::string text = result.to_json().dump(2) + "\n";
    std::fputs(text.c_str(), file.stream());
    file.commit();
  }
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
  sub->add_option("--json", flags->json_path, "Also write the results as JSON here");
  sub->callback([&action, flags] {
    action = [flags] { return print_result(feature::analyze_prefetch_bound(flags->options), flags->json_path); };
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
  sub->add_option("--json", flags->json_path, "Also write the results as JSON here");
  sub->callback([&action, flags] {
    action = [flags] { return print_result(feature::analyze_cache(flags->options), flags->json_path); };
  });
  add_analyze_prefetch(*analyze, action);
}

}  // namespace loom::cli
