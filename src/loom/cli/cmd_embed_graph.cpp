// `loom embed deepwalk STORE -o OUT [...]` and `loom embed node2vec STORE -o OUT --p P --q Q [...]`:
// random walks over a graph store, skip-gram with negative sampling on them, vectors keyed by the
// store's original node ids; see embed/eval/graph_embedding.hpp. Hangs off E1's `embed` command.
// Stopped by SIGTERM / SIGINT, it exits with 128 + the signal (a checkpoint saved with --checkpoint-dir).
#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "loom/cli/checkpoint_args.hpp"
#include "loom/cli/commands.hpp"
#include "loom/cli/config_option.hpp"
#include "loom/cli/graph_embed_args.hpp"
#include "loom/comm/mpi_session.hpp"
#include "loom/format/checkpoint_dir.hpp"
#include "loom/partition/store_verification.hpp"

namespace loom::cli {

namespace {

struct EmbedGraphArgs {
  GraphEmbedArgs graph;
  std::string store, output, format = "text";
  bool as_json = false;
  bool overwrite = false;
};

// One rank of `loom embed deepwalk|node2vec` (all ranks train together; rank 0 writes and prints).
int embed_graph_on(EmbedGraphArgs& args, comm::Communicator& world) {
  embed::eval::EmbedGraphOptions o;
  world.agree_on([&] {
    args.graph.finish();
    embed::check(args.graph.options.sync);
    o.format = core::parse_enum(embed::kEmbeddingFormatNames, args.format, "--format");
    if (world.rank() == 0) {
      embed::check_embedding_outputs(args.output, o.format, args.overwrite || args.graph.options.checkpoints.resume);
      format::check_checkpoint_target(args.graph.options.checkpoints.dir, args.graph.options.checkpoints.resume,
                                      args.overwrite);
    }
    args.graph.options.checkpoints.replace = args.overwrite;
  });
  o.store = args.store;
  o.output = args.output;
  world.agree_on([&] {
    if (world.rank() == 0) partition::verify_store(partition::mapped_folders(o.store));
  });
  o.graph = args.graph.options;
  if (world.size() > 1) o.graph.sync.comm = &world;
  const auto r = embed::eval::run_embed_graph(o);
  const nlohmann::json traffic = world.global_stats(world.stats()).to_json();  // collective
  if (r.train.stopped_by != 0) return 128 + r.train.stopped_by;
  if (world.rank() != 0) return 0;
  if (args.as_json) {
    nlohmann::json j = {{"output", o.output},
                        {"nodes", r.nodes},
                        {"vectors", r.vectors},
                        {"walk_steps", r.walk_steps},
                        {"walk_seconds", r.walk_seconds},
                        {"walk_steps_per_second", r.walk_steps_per_second},
                        {"train_seconds", r.train.seconds},
                        {"words_per_second", r.train.words_per_second},
                        {"loss", r.train.loss}};
    if (world.size() > 1) j["embeddings_bytes_sent"] = traffic["sum"]["embeddings"]["bytes_sent"];
    fmt::print("{}\n", j.dump());
  } else {
    if (world.size() > 1) fmt::print("embeddings channel, all ranks: {}\n", traffic["sum"]["embeddings"].dump());
    fmt::print(
        "wrote {} vectors of dimension {} to {} | walks {} steps in {:.2f}s ({:.3g} steps/s) | train {:.2f}s, "
        "{:.0f} words/s, loss {:.4f}\n",
        r.vectors, o.graph.sgns.dim, o.output, r.walk_steps, r.walk_seconds, r.walk_steps_per_second, r.train.seconds,
        r.train.words_per_second, r.train.loss);
  }
  return 0;
}

int run_embed_graph(EmbedGraphArgs args) {
  return comm::run_job([&](comm::Communicator& world) { return embed_graph_on(args, world); });
}

void add_one(CLI::App& embed_cmd, Action& action, const std::string& name, bool biased) {
  auto args = std::make_shared<EmbedGraphArgs>();
  auto* sub = embed_cmd.add_subcommand(name, biased ? "node2vec: biased second-order random walks (p, q) + skip-gram"
                                                    : "DeepWalk: uniform random walks + skip-gram");
  add_config_option(*sub);
  sub->add_option("store", args->store, "Graph store directory")->required();
  sub->add_option("-o,--output", args->output, "Output embedding file (keys are the store's original ids)")->required();
  sub->add_flag("--overwrite", args->overwrite, "Replace the output file if it exists");
  sub->add_option("--format", args->format, "text|binary|npy (npy also writes <stem>.vocab.txt)")
      ->capture_default_str();
  add_graph_embed_options(*sub, args->graph, biased);
  auto& checkpoints = args->graph.options.checkpoints;
  add_checkpoint_options(*sub, checkpoints.dir, checkpoints.every, checkpoints.keep, checkpoints.resume,
                         "Save the weights here (every --checkpoint-every epochs, and when stopped by a signal)");
  sub->add_flag("--json", args->as_json, "Print the summary as JSON");
  sub->callback([&action, args] { action = [args] { return run_embed_graph(*args); }; });
}

}  // namespace

void add_embed_graph_commands(CLI::App& app, Action& action) {
  auto* embed_cmd = app.get_subcommand("embed");
  add_one(*embed_cmd, action, "deepwalk", /*biased=*/false);
  add_one(*embed_cmd, action, "node2vec", /*biased=*/true);
}

}  // namespace loom::cli
