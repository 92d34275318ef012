// `loom plan [STORE] --cluster FILE --hosts 2,4,8 [--shape ...]`: the predicted epoch of `loom
// train` with these options (the same flags and --config files) on K hosts of the profiled
// cluster, per regime, and the fastest that fits (plan/planner.hpp). A table on stdout and, with
// --json, a file. `loom plan calibrate` (cmd_plan_calibrate.cpp) writes this host's profile;
// `loom plan fullgraph` (cmd_plan_fullgraph.cpp) plans `loom fullgraph`.
#include <cstdio>
#include <memory>

#include "loom/cli/commands.hpp"
#include "loom/cli/config_option.hpp"
#include "loom/cli/typed_options.hpp"
#include "loom/core/fs.hpp"
#include "loom/plan/planner.hpp"
#include "loom/train/minibatch/minibatch_options.hpp"

namespace loom::cli {

void add_plan_calibrate(CLI::App& plan, Action& action);
void add_plan_fullgraph(CLI::App& plan, Action& action);

namespace {

struct PlanFlags {
  plan::PlanOptions options;
  std::string shape;
  std::string json;
};

int run_plan(const PlanFlags& flags) {
  plan::PlanOptions options = flags.options;
  if (!flags.shape.empty()) options.shape = plan::parse_shape(flags.shape);
  if (!flags.json.empty()) core::check_output_target(flags.json, options.train.output.overwrite, "--json");
  const plan::Plan result = plan::make_plan(options);
  std::fputs(result.table().c_str(), stdout);
  if (!flags.json.empty()) core::write_text_file(flags.json, result.to_json().dump(2) + "\n");
  return 0;
}

}  // namespace

void add_plan_command(CLI::App& app, Action& action) {
  auto flags = std::make_shared<PlanFlags>();
  auto& o = flags->options;
  auto* sub = app.add_subcommand("plan", kPlanSummary);
  add_config_option(*sub, "train");
  sub->add_option("store", o.store,
                  "Graph store or partitioned store whose graph is planned for (or --shape for one not at hand)");
  sub->add_option("--cluster", o.cluster, "Cluster profile (configs/clusters/*.toml, or `loom plan calibrate`'s)");
  sub->add_option("--hosts", o.hosts, "Host counts K to predict for (one rank per host)")
      ->delimiter(',')
      ->capture_default_str();
  sub->add_option("--shape", flags->shape,
                  "A graph not at hand: nodes=111M,edges=3.2G,train=1.2M,feat-dim=128[,classes=172][,feat-dtype="
                  "float16] (counted on an R-MAT stand-in of at most 2^20 nodes, split K ways)");
  add_enum_list_option(*sub, "--regimes", o.regimes, plan::kRegimeNames, "Regimes to predict");
  add_enum_list_option(*sub, "--policies", o.policies, feature::kCachePolicyNames, "cache: policies ranking the cache");
  sub->add_option("--alphas", o.alphas, "cache: rows per host = alpha * N / K, each alpha")
      ->delimiter(',')
      ->capture_default_str();
  sub->add_option("--prefetch-fractions", o.prefetch, "prefetch: buffer sizes as fractions of each host's halo")
      ->delimiter(',')
      ->capture_default_str();
  add_enum_option(*sub, "--partition-method", o.partition_method, partition::kPartitionMethodNames,
                  "How the plan splits a store that is not already in K parts, or the --shape stand-in (as "
                  "`loom partition --method`; METIS is slow at large K on power-law graphs: stream is not)");
  sub->add_option("--json", flags->json, "Also write the plan as JSON here (--overwrite replaces it)");
  sub->add_option("--counts-dir", o.counts_dir,
                  "Keep each host count's counted work here and read it back when the graph, split, sampling and "
                  "holdings are the same (default: STORE/plan-counts; for --shape or a store not writable, "
                  "~/.cache/loom/plan-counts)");
  sub->add_flag("--recount", o.recount, "Count afresh even where counts are kept (and keep the new ones)");
  add_minibatch_options(*sub, o.train);
  add_plan_calibrate(*sub, action);
  add_plan_fullgraph(*sub, action);
  sub->callback([&action, flags, sub] {
    if (sub->got_subcommand("calibrate") || sub->got_subcommand("fullgraph")) return;
    if (flags->options.cluster.empty()) throw CLI::RequiredError("--cluster");
    action = [flags] { return run_plan(*flags); };
  });
}

}  // namespace loom::cli
