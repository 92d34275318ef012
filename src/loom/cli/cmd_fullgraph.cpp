// `loom fullgraph PARTS --mode graph|pipe|hybrid`: full-graph training of deep GNNs under
// `mpirun -np P` on a partitioned store (one part per rank for graph mode, one per chunk for
// pipe and hybrid). Options come from flags or a TOML --config file; flags override the file.
#include <memory>

#include "loom/cli/commands.hpp"
#include "loom/cli/config_option.hpp"
#include "loom/cli/typed_options.hpp"
#include "loom/cli/training_args.hpp"
#include "loom/train/fullgraph/fullgraph_trainer.hpp"

namespace loom::cli {

namespace {

int run_fullgraph(const train::FullGraphOptions& options) {
  return run_training_job([&](comm::Communicator& world) { return train::run_fullgraph(options, world).stopped_by; });
}

}  // namespace

void add_fullgraph_model_options(CLI::App& sub, train::FullGraphOptions& o) {
  add_enum_option(sub, "--model", o.model.kind, nn::kDeepKindNames, "Deep GNN");
  sub.add_option("--layers", o.model.num_layers, "Hidden GNN layers (between input and output linear layers)")
      ->capture_default_str();
  sub.add_option("--hidden", o.model.hidden, "Hidden width")->capture_default_str();
  sub.add_option("--dropout", o.model.dropout, "Dropout probability")->capture_default_str();
  sub.add_option("--gcnii-alpha", o.model.alpha, "gcnii: initial-residual weight")->capture_default_str();
  sub.add_option("--gcnii-lambda", o.model.lambda, "gcnii: identity-mapping strength")->capture_default_str();
  sub.add_option("--ways", o.ways, "hybrid: ranks per pipeline stage")->capture_default_str();
  sub.add_option("--chunks", o.chunks, "pipe/hybrid: chunks per way (0 = from the part count)")->capture_default_str();
}

void add_fullgraph_command(CLI::App& app, Action& action) {
  auto options = std::make_shared<train::FullGraphOptions>();
  auto& o = *options;
  auto* sub = app.add_subcommand("fullgraph", kFullgraphSummary);
  add_config_option(*sub);
  sub->add_option("parts", o.store, "Partitioned store (graph: one part per rank; pipe/hybrid: one part per chunk)")
      ->required();
  add_enum_option(*sub, "--mode", o.mode, train::kFullGraphModeNames, "graph parallelism, GNNPipe pipelining, or both");
  add_fullgraph_model_options(*sub, o);
  add_run_options(*sub, o.run, "Random seed (initialisation, dropout, chunk order)");
  sub->add_flag("--shuffle-chunks,!--fixed-chunk-order", o.shuffle_chunks, "New chunk order every epoch")
      ->capture_default_str();
  sub->add_option("--history-window", o.history_window, "Refresh historical embeddings every N epochs")
      ->capture_default_str();
  add_enum_option(*sub, "--cross-grad", o.cross_grad, train::kCrossGradNames,
                  "Cross-chunk gradients that arrive after their chunk's backward: unbiased (drop them, scale the "
                  "others by 2), stale (use their last epoch's value) or drop");
  sub->add_flag("--stale-halo", o.stale_halo, "graph mode: one-epoch-stale halo exchanged in the background (PipeGCN)");
  add_output_group(*sub, o.output, "JSON-lines metrics file (setup record, then one per epoch)");
  add_checkpoint_group(*sub, o.checkpoint, "Directory for checkpoints (one sub-directory per rank)");
  sub->callback([&action, options] { action = [options] { return run_fullgraph(*options); }; });
}

}  // namespace loom::cli
