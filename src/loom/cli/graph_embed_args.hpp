// Command-line options shared by the graph-embedding commands (`loom embed deepwalk|node2vec`,
// `loom eval linkpred`, `loom walk`): walk options and, for the trainers, the SGNS options, parsed
// into embed::eval::GraphEmbedOptions. finish() converts the string options once parsing is done.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "loom/core/enum_names.hpp"
#include "loom/embed/eval/graph_embedding.hpp"

namespace loom::cli {

struct GraphEmbedArgs {
  embed::eval::GraphEmbedOptions options;
  std::string kernel = embed::sgns_kernel_name(options.sgns.kernel);
  std::string combiner = "gc";
  bool quiet = false;

  void finish() {
    options.sgns.kernel = core::parse_enum(embed::kSgnsKernelNames, kernel, "--kernel");
    options.sync.combiner = core::parse_enum(embed::kCombinerNames, combiner, "--combiner");
    options.progress = !quiet;
    options.walks.seed = options.sgns.seed;
  }
};

// Distributed SGNS under mpirun: --combiner, --rounds and --half-updates.
inline void add_sync_options(CLI::App& sub, std::string& combiner, embed::SyncOptions& sync) {
  sub.add_option("--combiner", combiner, "With mpirun -np K: average | sum | gc (gradient combiner)")
      ->capture_default_str();
  sub.add_option("--rounds", sync.rounds, "With mpirun -np K: synchronisation rounds per epoch")->capture_default_str();
  sub.add_flag("--half-updates", sync.half_updates, "With mpirun -np K: send row updates as float16");
}

// Walk options (--walks --length, and --p --q when `biased`) plus --seed and --threads.
inline void add_walk_options(CLI::App& sub, GraphEmbedArgs& args, bool biased) {
  auto& w = args.options.walks;
  sub.add_option("--walks", w.walks_per_node, "Walks per node")->capture_default_str();
  sub.add_option("--length", w.length, "Nodes per walk")->capture_default_str();
  if (biased) {
    sub.add_option("--p", w.p, "Return parameter p (node2vec)")->capture_default_str();
    sub.add_option("--q", w.q, "In-out parameter q (node2vec)")->capture_default_str();
  }
  sub.add_option("--seed", args.options.sgns.seed, "Random seed")->capture_default_str();
  sub.add_option("--threads", args.options.sgns.threads, "Threads")->capture_default_str();
}

// Walk options plus the SGNS trainer's options.
inline void add_graph_embed_options(CLI::App& sub, GraphEmbedArgs& args, bool biased) {
  add_walk_options(sub, args, biased);
  auto& s = args.options.sgns;
  sub.add_option("--dim", s.dim, "Embedding dimension")->capture_default_str();
  sub.add_option("--window", s.window, "Maximum context distance in a walk")->capture_default_str();
  sub.add_option("--negative", s.negative, "Negative samples per prediction")->capture_default_str();
  sub.add_option("--sample", s.sample, "Frequent-node subsampling rate (0: off)")->capture_default_str();
  sub.add_option("--epochs", s.epochs, "Passes over the walks")->capture_default_str();
  sub.add_option("--alpha", s.alpha, "Starting learning rate")->capture_default_str();
  sub.add_option("--init-range", s.init_range, "Input vectors start uniform in +-R/dim")->capture_default_str();
  sub.add_option("--kernel", args.kernel, "shared | hogwild | batched (SGNS kernel; see docs/embeddings.md)")
      ->capture_default_str();
  sub.add_flag("--quiet", args.quiet, "No progress bar");
  add_sync_options(sub, args.combiner, args.options.sync);
}

}  // namespace loom::cli
