// `loom generate rmat|sbm -o DIR ...`: synthetic graph stores (R-MAT, stochastic block model).
#include <memory>

#include "loom/cli/commands.hpp"
#include "loom/cli/typed_options.hpp"
#include "loom/graph/csr_writer.hpp"
#include "loom/core/memory.hpp"
#include "loom/format/npy.hpp"
#include "loom/core/parallel.hpp"
#include "loom/graph/generate/rmat.hpp"
#include "loom/graph/generate/sbm.hpp"

namespace loom::cli {

namespace {

// Options every generator shares.
struct OutputArgs {
  std::string output;
  bool overwrite = false;
  format::DType feat_dtype = format::DType::kFloat32;
  graph::FeatureLayout words_layout = graph::FeatureLayout::kSparse;  // sbm --words
  int threads = 0;
  std::int64_t build_memory = graph::default_build_memory();

  graph::StoreWriteOptions write() const {
    graph::StoreWriteOptions w;
    w.overwrite = overwrite;
    w.feat_dtype = feat_dtype;
    w.words_layout = words_layout;
    w.memory_bytes = build_memory;
    return w;
  }
};

void add_output_options(CLI::App* sub, OutputArgs& out, std::uint64_t& seed) {
  sub->add_option("-o,--output", out.output, "Output graph store directory")->required();
  sub->add_flag("--overwrite", out.overwrite, "Replace DIR if it exists");
  add_enum_option(*sub, "--feat-dtype", out.feat_dtype, format::kFeatDTypeNames, "Feature storage type");
  sub->add_option("--seed", seed, "Random seed")->capture_default_str();
  sub->add_option("--threads", out.threads, "Threads (0 = all cores); the output does not depend on it")
      ->capture_default_str();
  add_build_memory_option(
      *sub, out.build_memory,
      "Memory for the edges in flight, e.g. 4G (default: a tenth of the memory available, 256M to 8G): the graph is "
      "built in passes, each placing "
      "the rows whose edges fit, so the peak is about this plus 16 bytes per node");
}

void add_split_options(CLI::App* sub, double& train, double& valid) {
  sub->add_option("--train", train, "Fraction of nodes in the train split")->capture_default_str();
  sub->add_option("--valid", valid, "Fraction of nodes in the valid split (test = the rest)")->capture_default_str();
}

// A generator's subcommand: its options (`add_options` registers them into Options and the
// output's settings), then `write` of the store they describe.
template <class Options>
void add_generator(CLI::App& generate, Action& action, const std::string& name, const std::string& help,
                   void (*add_options)(CLI::App*, Options&, OutputArgs&),
                   void (*write)(const Options&, const std::string&, const graph::StoreWriteOptions&)) {
  struct Args {
    Options options;
    OutputArgs out;
  };
  auto args = std::make_shared<Args>();
  auto* sub = generate.add_subcommand(name, help);
  add_output_options(sub, args->out, args->options.seed);
  add_options(sub, args->options, args->out);
  add_split_options(sub, args->options.train, args->options.valid);
  sub->callback([&action, args, write] {
    action = [args, write] {
      core::set_num_threads(args->out.threads);
      write(args->options, args->out.output, args->out.write());
      return 0;
    };
  });
}

void add_rmat_options(CLI::App* sub, graph::generate::RmatOptions& o, OutputArgs&) {
  sub->add_option("--scale", o.scale, "2^scale vertices")->required();
  sub->add_option("--edge-factor", o.edge_factor, "Generated edges per vertex")->capture_default_str();
  sub->add_option("--a", o.a, "Probability of the top-left quadrant")->capture_default_str();
  sub->add_option("--b", o.b, "Probability of the top-right quadrant")->capture_default_str();
  sub->add_option("--c", o.c, "Probability of the bottom-left quadrant (d = 1 - a - b - c)")->capture_default_str();
  sub->add_option("--feat-dim", o.feat_dim, "Random N(0,1) features per vertex (0 = none)")->capture_default_str();
  sub->add_option("--classes", o.classes, "Label classes from the top bits of the R-MAT id (0 = none)")
      ->capture_default_str();
}

void add_sbm_options(CLI::App* sub, graph::generate::SbmOptions& o, OutputArgs& out) {
  sub->add_option("--nodes", o.nodes, "Number of nodes")->required();
  sub->add_option("--classes", o.classes, "Number of classes (blocks)")->required();
  sub->add_option("--avg-degree", o.avg_degree, "Average stored degree")->required();
  sub->add_option("--homophily", o.homophily, "Fraction of intra-class edges")->capture_default_str();
  sub->add_option("--degree-skew", o.degree_skew, "Power-law exponent of expected degrees (> 2; 0 = equal)")
      ->capture_default_str();
  sub->add_option("--feat-dim", o.feat_dim, "Feature dimension")->required();
  sub->add_option("--feat-noise", o.feat_noise, "Feature noise sigma around the class centroid (norm ~1)")
      ->capture_default_str();
  sub->add_option("--words", o.words,
                  "Binary bag-of-words features instead: this many distinct words (columns of --feat-dim) per node, "
                  "half from its class's topic, stored in the sparse feature layout")
      ->capture_default_str();
  add_enum_option(*sub, "--words-layout", out.words_layout, graph::kFeatureLayoutNames,
                  "How --words rows are stored: sparse, or dense (feat.npy, for comparisons)");
}

}  // namespace

void add_generate_command(CLI::App& app, Action& action) {
  auto* generate = app.add_subcommand("generate", "Generate a synthetic graph store");
  generate->require_subcommand(1);
  add_generator<graph::generate::RmatOptions>(*generate, action, "rmat",
                                              "Graph500 R-MAT graph (symmetric, ids shuffled)", add_rmat_options,
                                              graph::generate::generate_rmat_store);
  add_generator<graph::generate::SbmOptions>(*generate, action, "sbm",
                                             "Stochastic block model with class-correlated features", add_sbm_options,
                                             graph::generate::generate_sbm_store);
}

}  // namespace loom::cli
