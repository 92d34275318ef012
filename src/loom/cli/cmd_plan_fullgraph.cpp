// `loom plan fullgraph STORE --cluster FILE --hosts 2,4 --modes graph,pipe,hybrid`: the predicted epoch of
// `loom fullgraph` with these options (the same model flags and --config files) on K hosts of the
// profiled cluster, per mode, and the faster (plan/fullgraph_plan.hpp). A table on stdout and, with
// --json, a file.
#include <cstdio>
#include <memory>

#include "loom/cli/commands.hpp"
#include "loom/cli/config_option.hpp"
#include "loom/cli/training_args.hpp"
#include "loom/cli/typed_options.hpp"
#include "loom/core/fs.hpp"
#include "loom/plan/fullgraph_plan.hpp"

namespace loom::cli {

namespace {

struct FullGraphPlanFlags {
  plan::FullGraphPlanOptions options;
  std::string json;
  bool overwrite = false;
};

int run_fullgraph_plan(const FullGraphPlanFlags& flags) {
  if (!flags.json.empty()) core::check_output_target(flags.json, flags.overwrite, "--json");
  const plan::FullGraphPlan result = plan::make_fullgraph_plan(flags.options);
  std::fputs(result.table().c_str(), stdout);
  if (!flags.json.empty()) core::write_text_file(flags.json, result.to_json().dump(2) + "\n");
  return 0;
}

}  // namespace

void add_plan_fullgraph(CLI::App& plan, Action& action) {
  auto flags = std::make_shared<FullGraphPlanFlags>();
  auto& o = flags->options;
  auto* sub = plan.add_subcommand("fullgraph", "Predict an epoch of `loom fullgraph` on K hosts of a profiled cluster");
  add_config_option(*sub, "fullgraph");
  sub->add_option("store", o.fullgraph.store, "Graph store or partitioned store whose graph is planned for")
      ->required();
  sub->add_option("--cluster", o.cluster, "Cluster profile (configs/clusters/*.toml, or `loom plan calibrate`'s)")
      ->required();
  sub->add_option("--hosts", o.hosts, "Host counts K to predict for (one rank per host)")
      ->delimiter(',')
      ->capture_default_str();
  add_enum_list_option(*sub, "--modes", o.modes, train::kFullGraphModeNames,
                       "Modes to predict (graph, pipe, hybrid with --ways)");
  add_enum_option(*sub, "--partition-method", o.partition_method, partition::kPartitionMethodNames,
                  "How the plan splits a store that is not already in the parts a mode needs");
  add_fullgraph_model_options(*sub, o.fullgraph);
  add_run_options(*sub, o.fullgraph.run, "Seed of the model's initialisation and of the split");
  sub->add_option("--json", flags->json, "Also write the plan as JSON here");
  sub->add_flag("--overwrite", flags->overwrite, "Replace the --json file if it exists");
  sub->callback([&action, flags] { action = [flags] { return run_fullgraph_plan(*flags); }; });
}

}  // namespace loom::cli
