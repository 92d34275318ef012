// `loom train STORE`: sampled mini-batch GNN training, in one process on a graph store or under
// `mpirun -np K` on a K-way partitioned store, of node classification (--task node) or link
// prediction (--task link: held-out edges, negatives, a decoder; train/link_trainer.hpp). Options come from flags or a
// TOML --config file (keys are the long flag names, e.g. `fanouts = "15,10,5"`); flags override the file.
#include <memory>

#include "loom/cli/commands.hpp"
#include "loom/cli/config_option.hpp"
#include "loom/cli/typed_options.hpp"
#include "loom/cli/training_args.hpp"
#include "loom/core/memory.hpp"
#include "loom/train/minibatch/link_trainer.hpp"
#include "loom/train/minibatch/minibatch_trainer.hpp"

namespace loom::cli {

namespace {

int run_train(const train::MinibatchOptions& options) {
  return run_training_job([&](comm::Communicator& world) {
    if (options.task == train::Task::kLink) {
      train::run_link_prediction(options, world);
      return 0;
    }
    return train::run_minibatch(options, world).stopped_by;
  });
}

}  // namespace

void add_minibatch_options(CLI::App& app, train::MinibatchOptions& o) {
  auto* sub = &app;
  add_enum_option(*sub, "--task", o.task, train::kTaskNames,
                  "What is learned: node labels, or links (edges against sampled non-edges)");
  add_enum_option(*sub, "--decoder", o.link.decoder, nn::kLinkDecoderNames,
                  "link: score of a pair from its embeddings (dot product, or an MLP on their product)");
  add_enum_option(*sub, "--negatives", o.link.negatives, train::kNegativeSamplingNames,
                  "link: training negatives' endpoints drawn uniformly or in proportion to degree");
  sub->add_option("--negative-ratio", o.link.negative_ratio, "link: training negatives per positive edge")
      ->capture_default_str();
  sub->add_flag("--drop-target-edges", o.link.drop_positive_edges,
                "link: leave each batch's positive edges out of its sampled message graph");
  sub->add_option("--link-valid", o.link.split.valid, "link: fraction of the edges held out for validation")
      ->capture_default_str();
  sub->add_option("--link-test", o.link.split.test, "link: fraction of the edges held out for test")
      ->capture_default_str();
  sub->add_option("--link-eval-negatives", o.link.split.eval_negatives,
                  "link: negatives drawn per held-out edge (u, v): pairs (u, w) that are no edge")
      ->capture_default_str();
  sub->add_option("--hits-at", o.link.hits_at, "link: the K of the Hits@K reported")
      ->delimiter(',')
      ->capture_default_str();
  add_enum_option(*sub, "--model", o.model.kind, nn::kModelKindNames, "GNN layers");
  sub->add_option("--layers", o.model.num_layers, "Number of GNN layers")->capture_default_str();
  sub->add_option("--hidden", o.model.hidden, "Hidden width")->capture_default_str();
  sub->add_option("--dropout", o.model.dropout, "Dropout probability after each hidden layer")->capture_default_str();
  sub->add_option("--input-dropout", o.model.input_dropout, "Dropout probability on the input features")
      ->capture_default_str();
  add_enum_option(*sub, "--activation", o.model.activation, nn::kActivationNames, "Activation after each hidden layer");
  sub->add_option("--heads", o.model.heads, "gat: attention heads of each hidden layer (0 = 4)")->capture_default_str();
  sub->add_option("--output-heads", o.model.output_heads, "gat: heads of the output layer, averaged (0 = as --heads)")
      ->capture_default_str();
  add_enum_option(*sub, "--head-merge", o.model.head_merge, nn::kHeadMergeNames,
                  "gat: hidden layers concatenate their heads (--hidden is the total width) or average them");
  sub->add_option("--attention-dropout", o.model.attention_dropout,
                  "gat: dropout probability on the attention coefficients")
      ->capture_default_str();
  add_fanouts_option(*sub, "--fanouts", o.fanouts, "Neighbours sampled per layer, hop from the seeds first (-1 = all)");
  sub->add_option("--batch-size", o.batch_size, "Seeds (link: positive edges) per step and rank")
      ->capture_default_str();
  add_run_options(*sub, o.run, "Random seed (samples, shuffles, initialisation)");
  sub->add_option("--max-steps", o.max_steps,
                  "Steps per epoch at most (0 = all); an epoch cut short also reports its projected full time")
      ->capture_default_str();
  sub->add_option("--weight-decay-layers", o.weight_decay_layers,
                  "Layers weight decay applies to, 0 = the input layer (e.g. 0 for GCN's recipe; default all)")
      ->delimiter(',');
  add_enum_option(*sub, "--normalize-features", o.data_path.normalize_features, graph::kFeatureNormNames,
                  "Normalise the feature rows at start-up (row: by their L1 norms; standard: columns by the "
                  "training nodes' mean and variance)");
  sub->add_option("--pipeline-depth", o.data_path.pipeline_depth, "Batches prepared ahead (0 = synchronous fetch)")
      ->capture_default_str();
  sub->add_option("--sample-workers", o.data_path.sample_workers,
                  "Threads sampling batches at once, one batch each, ahead of their fetch (0 = 1 on cpu; on "
                  "cuda half the rank's threads, at most 8)")
      ->capture_default_str();
  sub->add_option("--superbatch", o.data_path.superbatch,
                  "Training batches whose input rows are fetched in one gather, each distinct row once: with "
                  "features on disk, one sweep of the file for that many steps (rows held in the store's dtype)")
      ->capture_default_str();
  sub->add_option("--device-rows", o.data_path.device_rows,
                  "Fraction of the rank's own feature rows held in device memory, hottest by VIP first "
                  "(the rest in host memory, pinned under cuda)")
      ->capture_default_str();
  add_enum_option(*sub, "--host-reads", o.data_path.host_reads, train::kHostReadsNames,
                  "How the device gets the own rows --device-rows leaves on the host: staged (gathered by the "
                  "host into a pinned buffer, copied once per step) or mapped (read by the GPU in place from "
                  "pinned host memory, as DGL's UVA)");
  add_parsed_option(
      *sub, "--device-memory-limit", o.data_path.device_memory_limit,
      [](const std::string& text) { return core::parse_memory_size(text, "--device-memory-limit"); },
      "GPU memory one rank may use, e.g. 8G (default: its share of the GPU's free memory); the run "
      "stops at start-up where its device estimate does not fit")
      ->option_text("SIZE");
  add_enum_option(*sub, "--wire-dtype", o.data_path.wire_dtype, feature::kWireDTypeNames, "Feature rows on the wire");
  add_enum_option(*sub, "--cache", o.cache.policy, feature::kCachePolicyNames, "Static cache of remote rows");
  sub->add_option("--alpha", o.cache.alpha, "Cache rows per rank = alpha * N / K")->capture_default_str();
  sub->add_option("--cache-epochs", o.cache.simulation_epochs, "Epochs the simulation cache policy samples")
      ->capture_default_str();
  add_enum_option(*sub, "--cache-dtype", o.cache.dtype, format::kFloatDTypeNames, "Cache rows stored as");
  add_enum_option(*sub, "--controller", o.prefetch.controller.kind, control::kControllerNames,
                  "Prefetch buffer controller (none: no buffer)");
  sub->add_option("--prefetch", o.prefetch.buffer.fraction, "Prefetch buffer size as a fraction of the rank's halo")
      ->capture_default_str();
  add_enum_option(*sub, "--prefetch-init", o.prefetch.buffer.initial, feature::kPrefetchStartNames,
                  "Initial buffer contents (the rows that policy ranks hottest)");
  sub->add_option("--prefetch-decay", o.prefetch.buffer.decay, "Score decay per minibatch (a)")->capture_default_str();
  sub->add_option("--prefetch-lookahead", o.prefetch.buffer.lookahead,
                  "Sample this many minibatches ahead and keep the fetched rows they use (0 = off, or 4 with "
                  "--controller lookahead)")
      ->capture_default_str();
  sub->add_option("--prefetch-period", o.prefetch.buffer.period, "Rows idle this many minibatches may be evicted")
      ->capture_default_str();
  sub->add_option("--evict-every", o.prefetch.controller.period, "periodic controller: minibatches between evictions")
      ->capture_default_str();
  sub->add_option("--control-window", o.prefetch.window, "Minibatches per controller decision")->capture_default_str();
  sub->add_option("--decision-log", o.prefetch.decision_log,
                  "JSON lines of prefetch decisions and outcomes (per rank)");
  sub->add_option("--llm-url", o.prefetch.controller.llm_url, "llm controller: server URL")->capture_default_str();
  sub->add_option("--llm-model", o.prefetch.controller.llm_model, "llm controller: model name")->capture_default_str();
  add_enum_option(*sub, "--llm-api", o.prefetch.controller.llm_api, control::kLlmApiNames,
                  "llm controller: server protocol");
  sub->add_option("--llm-timeout", o.prefetch.controller.llm_timeout, "llm controller: seconds per request")
      ->capture_default_str();
  sub->add_option("--llm-retries", o.prefetch.controller.llm_retries, "llm controller: retries after a failed request")
      ->capture_default_str();
  add_enum_option(*sub, "--llm-fallback", o.prefetch.controller.llm_fallback, control::kControllerNames,
                  "llm controller: who decides when the LLM cannot (never, periodic, rules or logistic)");
  sub->add_option("--change-epoch", o.change.epoch, "From this epoch (0-based) on, train with the --change-* settings")
      ->capture_default_str();
  add_fanouts_option(*sub, "--change-fanouts", o.change.fanouts, "Fanouts from --change-epoch on");
  sub->add_option("--change-batch-size", o.change.batch_size, "Batch size from --change-epoch on (0 = unchanged)")
      ->capture_default_str();
  sub->add_option("--change-train-fraction", o.change.train_fraction,
                  "From --change-epoch on, seeds come from this share of each rank's training nodes")
      ->capture_default_str();
  add_enum_option(*sub, "--eval-mode", o.evaluation.mode, train::kEvalModeNames,
                  "Per-epoch evaluation: sampled (--eval-fanouts) or exact (full neighbourhoods)");
  add_enum_option(*sub, "--selection", o.evaluation.selection, train::kSelectionNames,
                  "Weights evaluated and written at the end: the last epoch's or the best validation epoch's");
  sub->add_option("--patience", o.evaluation.patience,
                  "Stop after N epochs without a better validation score (0 = never)")
      ->capture_default_str();
  add_fanouts_option(*sub, "--eval-fanouts", o.evaluation.fanouts,
                     "Fanouts of sampled evaluation (one value or one per layer)");
  sub->add_option("--eval-batch-size", o.evaluation.batch_size, "Seeds per evaluation step")->capture_default_str();
  sub->add_flag("!--no-exact-eval", o.evaluation.exact, "Skip exact layer-wise inference after training");
  add_output_group(*sub, o.output, "JSON-lines metrics file (one record per epoch)");
  add_checkpoint_group(*sub, o.checkpoint, "Directory for checkpoints");
}

void add_train_command(CLI::App& app, Action& action) {
  auto options = std::make_shared<train::MinibatchOptions>();
  auto* sub = app.add_subcommand("train", kTrainSummary);
  add_config_option(*sub);
  sub->add_option("store", options->store, "Graph store, or partitioned store with one part per rank")->required();
  add_minibatch_options(*sub, *options);
  sub->callback([&action, options] { action = [options] { return run_train(*options); }; });
}

}  // namespace loom::cli
