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
    if (options.task == train::Task::kLink) return train::run_link_prediction(options, world).stopped_by;
    return train::run_minibatch(options, world).stopped_by;
  });
}

// What is learned and, for links, how pairs are drawn and scored.
void add_link_task_options(CLI::App& app, train::MinibatchOptions& o) {
  add_enum_option(app, "--task", o.task, train::kTaskNames,
                  "What is learned: node labels, or links (edges against sampled non-edges)");
  add_enum_option(app, "--decoder", o.link.decoder, nn::kLinkDecoderNames,
                  "link: score of a pair from its embeddings (dot product, or an MLP on their product)");
  add_enum_option(app, "--negatives", o.link.negatives, loader::kNegativeSamplingNames,
                  "link: training negatives' endpoints drawn uniformly or in proportion to degree");
  app.add_option("--negative-ratio", o.link.negative_ratio, "link: training negatives per positive edge")
      ->capture_default_str();
  app.add_flag("--drop-target-edges", o.link.drop_positive_edges,
               "link: leave each batch's positive edges out of its sampled message graph");
  app.add_option("--link-valid", o.link.split.valid, "link: fraction of the edges held out for validation")
      ->capture_default_str();
  app.add_option("--link-test", o.link.split.test, "link: fraction of the edges held out for test")
      ->capture_default_str();
  app.add_option("--link-eval-negatives", o.link.split.eval_negatives,
                 "link: negatives drawn per held-out edge (u, v): pairs (u, w) that are no edge")
      ->capture_default_str();
  app.add_option("--hits-at", o.link.hits_at, "link: the K of the Hits@K reported")
      ->delimiter(',')
      ->capture_default_str();
}

// The GNN.
void add_model_options(CLI::App& app, nn::ModelOptions& model) {
  add_enum_option(app, "--model", model.kind, nn::kModelKindNames, "GNN layers");
  app.add_option("--layers", model.num_layers, "Number of GNN layers")->capture_default_str();
  app.add_option("--hidden", model.hidden, "Hidden width")->capture_default_str();
  app.add_option("--dropout", model.dropout, "Dropout probability after each hidden layer")->capture_default_str();
  app.add_option("--input-dropout", model.input_dropout, "Dropout probability on the input features")
      ->capture_default_str();
  add_enum_option(app, "--activation", model.activation, nn::kActivationNames, "Activation after each hidden layer");
  app.add_option("--heads", model.heads, "gat: attention heads of each hidden layer (0 = 4)")->capture_default_str();
  app.add_option("--output-heads", model.output_heads, "gat: heads of the output layer, averaged (0 = as --heads)")
      ->capture_default_str();
  add_enum_option(app, "--head-merge", model.head_merge, nn::kHeadMergeNames,
                  "gat: hidden layers concatenate their heads (--hidden is the total width) or average them");
  app.add_option("--attention-dropout", model.attention_dropout,
                 "gat: dropout probability on the attention coefficients")
      ->capture_default_str();
}

// What a step samples, how many steps an epoch takes, and the run's seed.
void add_sampling_options(CLI::App& app, train::MinibatchOptions& o) {
  add_fanouts_option(app, "--fanouts", o.fanouts, "Neighbours sampled per layer, hop from the seeds first (-1 = all)");
  app.add_option("--batch-size", o.batch_size, "Seeds (link: positive edges) per step and rank")->capture_default_str();
  add_run_options(app, o.run, "Random seed (samples, shuffles, initialisation)");
  app.add_option("--max-steps", o.max_steps,
                 "Steps per epoch at most (0 = all); an epoch cut short also reports its projected full time")
      ->capture_default_str();
  app.add_option("--weight-decay-layers", o.weight_decay_layers,
                 "Layers weight decay applies to, 0 = the input layer (e.g. 0 for GCN's recipe; default all)")
      ->delimiter(',');
}

// How rows reach the model: normalisation, the pipeline, the device.
void add_data_path_options(CLI::App& app, loader::DataPathOptions& data_path) {
  add_enum_option(app, "--normalize-features", data_path.normalize_features, graph::kFeatureNormNames,
                  "Normalise the feature rows at start-up (row: by their L1 norms; standard: columns by the "
                  "training nodes' mean and variance)");
  app.add_option("--pipeline-depth", data_path.pipeline_depth, "Batches prepared ahead (0 = synchronous fetch)")
      ->capture_default_str();
  app.add_option("--sample-workers", data_path.sample_workers,
                 "Threads sampling batches at once, one batch each, ahead of their fetch (0 = 1 on cpu; on "
                 "cuda half the rank's threads, at most 8)")
      ->capture_default_str();
  app.add_option("--superbatch", data_path.superbatch,
                 "Training batches whose input rows are fetched in one gather, each distinct row once: with "
                 "features on disk, one sweep of the file for that many steps (rows held in the store's dtype)")
      ->capture_default_str();
  app.add_option("--device-rows", data_path.device_rows,
                 "Fraction of the rank's own feature rows held in device memory, hottest by VIP first "
                 "(the rest in host memory, pinned under cuda)")
      ->capture_default_str();
  add_enum_option(app, "--host-reads", data_path.host_reads, loader::kHostReadsNames,
                  "How the device gets the own rows --device-rows leaves on the host: staged (gathered by the "
                  "host into a pinned buffer, copied once per step) or mapped (read by the GPU in place from "
                  "pinned host memory, as DGL's UVA)");
  add_parsed_option(
      app, "--device-memory-limit", data_path.device_memory_limit,
      [](const std::string& text) { return core::parse_memory_size(text, "--device-memory-limit"); },
      "GPU memory one rank may use, e.g. 8G (default: its share of the GPU's free memory); the run "
      "stops at start-up where its device estimate does not fit")
      ->option_text("SIZE");
  add_enum_option(app, "--wire-dtype", data_path.wire_dtype, feature::kWireDTypeNames, "Feature rows on the wire");
}

// The static cache of remote rows (SALIENT++).
void add_cache_options(CLI::App& app, loader::StaticCacheOptions& cache) {
  add_enum_option(app, "--cache", cache.policy, feature::kCachePolicyNames, "Static cache of remote rows");
  app.add_option("--alpha", cache.alpha, "Cache rows per rank = alpha * N / K")->capture_default_str();
  add_parsed_option(
      app, "--cache-memory", cache.memory_bytes,
      [](const std::string& text) { return core::parse_memory_size(text, "--cache-memory"); },
      "Instead of --alpha: as many cache rows per rank as fit in SIZE, e.g. 512M (a row's bytes in the cache's "
      "storage: dense, its width in --cache-dtype; sparse, its entries, by the rank's own rows' mean), so that "
      "one budget holds whatever the feature layout")
      ->option_text("SIZE");
  app.add_option("--cache-epochs", cache.simulation_epochs, "Epochs the simulation cache policy samples")
      ->capture_default_str();
  add_enum_option(app, "--cache-dtype", cache.dtype, format::kFloatDTypeNames, "Cache rows stored as");
}

// Rudder's prefetch buffer and the controller that evicts from it.
void add_prefetch_options(CLI::App& app, loader::PrefetchSetupOptions& prefetch) {
  add_enum_option(app, "--controller", prefetch.controller.kind, control::kControllerNames,
                  "Prefetch buffer controller (none: no buffer)");
  app.add_option("--prefetch", prefetch.buffer.fraction, "Prefetch buffer size as a fraction of the rank's halo")
      ->capture_default_str();
  add_enum_option(app, "--prefetch-init", prefetch.buffer.initial, feature::kPrefetchStartNames,
                  "Initial buffer contents (the rows that policy ranks hottest)");
  app.add_option("--prefetch-decay", prefetch.buffer.decay, "Score decay per minibatch (a)")->capture_default_str();
  app.add_option("--prefetch-lookahead", prefetch.buffer.lookahead,
                 "Sample this many minibatches ahead and keep the fetched rows they use (0 = off, or 4 with "
                 "--controller lookahead)")
      ->capture_default_str();
  app.add_option("--prefetch-period", prefetch.buffer.period, "Rows idle this many minibatches may be evicted")
      ->capture_default_str();
  app.add_option("--evict-every", prefetch.controller.period, "periodic controller: minibatches between evictions")
      ->capture_default_str();
  app.add_option("--control-window", prefetch.window, "Minibatches per controller decision")->capture_default_str();
  app.add_option("--decision-log", prefetch.decision_log, "JSON lines of prefetch decisions and outcomes (per rank)");
  app.add_option("--llm-url", prefetch.controller.llm_url, "llm controller: server URL")->capture_default_str();
  app.add_option("--llm-model", prefetch.controller.llm_model, "llm controller: model name")->capture_default_str();
  add_enum_option(app, "--llm-api", prefetch.controller.llm_api, control::kLlmApiNames,
                  "llm controller: server protocol");
  app.add_option("--llm-timeout", prefetch.controller.llm_timeout, "llm controller: seconds per request")
      ->capture_default_str();
  app.add_option("--llm-retries", prefetch.controller.llm_retries, "llm controller: retries after a failed request")
      ->capture_default_str();
  add_enum_option(app, "--llm-fallback", prefetch.controller.llm_fallback, control::kControllerNames,
                  "llm controller: who decides when the LLM cannot (never, periodic, rules or logistic)");
}

// Settings that change at an epoch.
void add_change_options(CLI::App& app, loader::ChangeOptions& change) {
  app.add_option("--change-epoch", change.epoch, "From this epoch (0-based) on, train with the --change-* settings")
      ->capture_default_str();
  add_fanouts_option(app, "--change-fanouts", change.fanouts, "Fanouts from --change-epoch on");
  app.add_option("--change-batch-size", change.batch_size, "Batch size from --change-epoch on (0 = unchanged)")
      ->capture_default_str();
  app.add_option("--change-train-fraction", change.train_fraction,
                 "From --change-epoch on, seeds come from this share of each rank's training nodes")
      ->capture_default_str();
}

// Evaluation and model selection.
void add_evaluation_options(CLI::App& app, train::EvaluationOptions& evaluation) {
  add_enum_option(app, "--eval-mode", evaluation.mode, train::kEvalModeNames,
                  "Per-epoch evaluation: sampled (--eval-fanouts) or exact (full neighbourhoods)");
  add_enum_option(app, "--selection", evaluation.selection, train::kSelectionNames,
                  "Weights evaluated and written at the end: the last epoch's or the best validation epoch's");
  app.add_option("--patience", evaluation.patience, "Stop after N epochs without a better validation score (0 = never)")
      ->capture_default_str();
  add_fanouts_option(app, "--eval-fanouts", evaluation.fanouts,
                     "Fanouts of sampled evaluation (one value or one per layer)");
  app.add_option("--eval-batch-size", evaluation.batch_size, "Seeds per evaluation step")->capture_default_str();
  app.add_flag("!--no-exact-eval", evaluation.exact, "Skip exact layer-wise inference after training");
}

}  // namespace

void add_minibatch_options(CLI::App& app, train::MinibatchOptions& o) {
  add_link_task_options(app, o);
  add_model_options(app, o.model);
  add_sampling_options(app, o);
  add_data_path_options(app, o.data_path);
  add_cache_options(app, o.cache);
  add_prefetch_options(app, o.prefetch);
  add_change_options(app, o.change);
  add_evaluation_options(app, o.evaluation);
  add_output_group(app, o.output, "JSON-lines metrics file (one record per epoch)");
  add_checkpoint_group(app, o.checkpoint, "Directory for checkpoints");
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
