// `loom walk STORE [-o WALKS.npy] [--walks 10 --length 80 --p 1 --q 1 --seed 1 --threads 2]`:
// generates DeepWalk (p = q = 1) or node2vec random walks over a graph store and reports the
// throughput in steps/s; with -o, writes them as an int32 .npy of num_walks x length row ids
// (-1 after a walk stops at a node without neighbours). See sample/walk/random_walk.hpp.
#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "loom/cli/commands.hpp"
#include "loom/core/fs.hpp"
#include "loom/cli/graph_embed_args.hpp"
#include "loom/format/npy.hpp"
#include "loom/core/parallel.hpp"
#include "loom/graph/store.hpp"
#include "loom/partition/store_verification.hpp"

namespace loom::cli {

namespace {

struct WalkArgs {
  GraphEmbedArgs graph;
  std::string store, output;
  bool as_json = false;
  bool overwrite = false;
};

int run_walk(WalkArgs args) {
  args.graph.finish();
  const auto& opt = args.graph.options;
  sample::walk::check_walk_options(opt.walks);
  LOOM_CHECK_ARG(opt.sgns.threads >= 1, "--threads", "must be >= 1, got {}", opt.sgns.threads);
  core::set_num_threads(opt.sgns.threads);
  if (!args.output.empty()) core::check_output_target(args.output, args.overwrite, "-o");
  const auto store = graph::GraphStore::open(args.store);
  partition::verify_store(partition::mapped_folders(args.store));
  const auto walks = sample::walk::generate_walks(store.csr(), opt.walks);
  if (!args.output.empty()) format::write_npy(args.output, walks.nodes, {walks.num_walks, walks.length});
  if (args.as_json) {
    const nlohmann::json j = {{"store", args.store},        {"p", opt.walks.p},
                              {"q", opt.walks.q},           {"walks", walks.num_walks},
                              {"length", walks.length},     {"steps", walks.steps},
                              {"seconds", walks.seconds},   {"steps_per_second", walks.steps_per_second()},
                              {"threads", opt.sgns.threads}};
    fmt::print("{}\n", j.dump());
  } else {
    fmt::print("{} walks of length {} (p={}, q={}): {} steps in {:.3f}s, {:.4g} steps/s{}\n", walks.num_walks,
               walks.length, opt.walks.p, opt.walks.q, walks.steps, walks.seconds, walks.steps_per_second(),
               args.output.empty() ? std::string() : ", written to " + args.output);
  }
  return 0;
}

}  // namespace

void add_walk_command(CLI::App& app, Action& action) {
  auto args = std::make_shared<WalkArgs>();
  auto* sub = app.add_subcommand("walk", "Generate DeepWalk/node2vec random walks and report steps/s");
  sub->add_option("store", args->store, "Graph store directory")->required();
  sub->add_option("-o,--output", args->output, "Write the walks as an int32 .npy (num_walks x length)");
  sub->add_flag("--overwrite", args->overwrite, "Replace the -o file if it exists");
  add_walk_options(*sub, args->graph, /*biased=*/true);
  sub->add_flag("--json", args->as_json, "Print the summary as JSON");
  sub->callback([&action, args] { action = [args] { return run_walk(*args); }; });
}

}  // namespace loom::cli
