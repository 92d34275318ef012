// `loom embed text CORPUS -o OUT [...]`: Word2Vec (skip-gram or CBOW with negative sampling) on a
// text corpus; see embed/embed_text.hpp. Prints a one-line summary (or JSON with --json). Stopped by
// SIGTERM / SIGINT, it exits with 128 + the signal (a checkpoint saved with --checkpoint-dir).
#include <memory>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "loom/cli/checkpoint_args.hpp"
#include "loom/cli/commands.hpp"
#include "loom/cli/config_option.hpp"
#include "loom/cli/graph_embed_args.hpp"
#include "loom/comm/mpi_session.hpp"
#include "loom/format/checkpoint_dir.hpp"
#include "loom/embed/embed_text.hpp"

namespace loom::cli {

namespace {

struct EmbedTextArgs {
  embed::EmbedTextOptions options;
  std::string tokenize = "lower-letters";
  std::string kernel = "batched";
  std::string format = "text";
  std::optional<double> alpha;
  std::string combiner = "gc";
  bool quiet = false;
  bool as_json = false;
  bool overwrite = false;
};

int run_embed_text_on(EmbedTextArgs& args, comm::Communicator& world) {
  auto& o = args.options;
  o.text.tokenize = core::parse_enum(embed::kTokenizeModeNames, args.tokenize, "--tokenize");
  o.sgns.kernel = core::parse_enum(embed::kSgnsKernelNames, args.kernel, "--kernel");
  o.format = core::parse_enum(embed::kEmbeddingFormatNames, args.format, "--format");
  o.sgns.alpha = args.alpha ? *args.alpha : (o.sgns.cbow ? 0.05 : 0.025);  // word2vec.c's defaults
  o.sgns.progress = !args.quiet;
  o.sgns.label = "embed";
  world.agree_on([&] {
    o.sync.combiner = core::parse_enum(embed::kCombinerNames, args.combiner, "--combiner");
    embed::check(o.sync);
    if (world.rank() == 0) {
      embed::check_embedding_outputs(o.output, o.format, args.overwrite || o.checkpoints.resume);
      format::check_checkpoint_target(o.checkpoints.dir, o.checkpoints.resume, args.overwrite);
    }
  });
  o.checkpoints.replace = args.overwrite;
  if (world.size() > 1) o.sync.comm = &world;
  const auto r = embed::run_embed_text(o);
  const nlohmann::json traffic = world.global_stats(world.stats()).to_json();  // collective
  if (r.train.stopped_by != 0) return 128 + r.train.stopped_by;
  if (world.rank() != 0) return 0;
  if (args.as_json) {
    nlohmann::json j = {{"output", o.output},
                        {"vocab_size", r.vocab_size},
                        {"tokens", r.tokens},
                        {"sentences", r.sentences},
                        {"read_seconds", r.read_seconds},
                        {"train_seconds", r.train.seconds},
                        {"words", r.train.words},
                        {"words_per_second", r.train.words_per_second},
                        {"loss", r.train.loss},
                        {"write_seconds", r.write_seconds}};
    if (world.size() > 1) j["embeddings_bytes_sent"] = traffic["sum"]["embeddings"]["bytes_sent"];
    fmt::print("{}\n", j.dump());
  } else {
    if (world.size() > 1) fmt::print("embeddings channel, all ranks: {}\n", traffic["sum"]["embeddings"].dump());
    fmt::print(
        "wrote {} vectors of dimension {} to {} | corpus {} tokens, read {:.2f}s | train {:.2f}s, {:.0f} words/s, loss "
        "{:.4f}\n",
        r.vocab_size, o.sgns.dim, o.output, r.tokens, r.read_seconds, r.train.seconds, r.train.words_per_second,
        r.train.loss);
  }
  return 0;
}

int run_embed_text(EmbedTextArgs args) {
  return comm::run_job([&](comm::Communicator& world) { return run_embed_text_on(args, world); });
}

}  // namespace

void add_embed_command(CLI::App& app, Action& action) {
  auto* embed_cmd = app.add_subcommand("embed", "Train word or node embeddings (SGNS)");
  embed_cmd->require_subcommand(1);

  auto args = std::make_shared<EmbedTextArgs>();
  auto& o = args->options;
  auto* sub = embed_cmd->add_subcommand("text", "Word2Vec on a text corpus (gzip or plain, one sentence per line)");
  add_config_option(*sub);
  sub->add_option("corpus", o.corpus, "Text corpus")->required();
  sub->add_option("-o,--output", o.output, "Output embedding file")->required();
  sub->add_flag("--overwrite", args->overwrite, "Replace the output file if it exists");
  sub->add_option("--format", args->format, "text|binary|npy (npy also writes <stem>.vocab.txt)")
      ->capture_default_str();
  sub->add_option("--tokenize", args->tokenize, "lower-letters|lower|raw")->capture_default_str();
  sub->add_option("--min-count", o.text.min_count, "Drop words seen fewer times")->capture_default_str();
  sub->add_option("--dim", o.sgns.dim, "Embedding dimension")->capture_default_str();
  sub->add_option("--window", o.sgns.window, "Maximum context distance")->capture_default_str();
  sub->add_option("--negative", o.sgns.negative, "Negative samples per prediction")->capture_default_str();
  sub->add_option("--sample", o.sgns.sample, "Frequent-word subsampling rate (0: off)")->capture_default_str();
  sub->add_option("--epochs", o.sgns.epochs, "Passes over the corpus")->capture_default_str();
  sub->add_option("--alpha", args->alpha, "Starting learning rate (default 0.025, 0.05 with --cbow)");
  sub->add_option("--init-range", o.sgns.init_range, "Input vectors start uniform in +-R/dim")->capture_default_str();
  sub->add_option("--threads", o.sgns.threads, "Worker threads")->capture_default_str();
  sub->add_option(
         "--kernel", args->kernel,
         "batched (shared negatives, pWord2Vec) | shared (shared negatives, sequential updates) | hogwild (word2vec.c)")
      ->capture_default_str();
  sub->add_flag("--cbow", o.sgns.cbow, "CBOW instead of skip-gram");
  sub->add_option("--seed", o.sgns.seed, "Random seed")->capture_default_str();
  sub->add_flag("--quiet", args->quiet, "No progress bar");
  sub->add_flag("--json", args->as_json, "Print the summary as JSON");
  add_sync_options(*sub, args->combiner, o.sync);
  add_checkpoint_options(*sub, o.checkpoints.dir, o.checkpoints.every, o.checkpoints.keep, o.checkpoints.resume,
                         "Save the weights here (every --checkpoint-every epochs, and when stopped by a signal)");
  sub->callback([&action, args] { action = [args] { return run_embed_text(*args); }; });
}

}  // namespace loom::cli
