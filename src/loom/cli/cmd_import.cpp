// `loom import ogb|edgelist|npy|mag240m SRC -o DIR`: parse options into the importers' option structs,
// claim the output directory first (so an unwritable -o fails before any input is read), run the
// importer, optionally give the nodes features from trained embeddings (--features) and a random
// split of the labelled nodes (--random-split), and write the graph store atomically.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "loom/cli/commands.hpp"
#include "loom/cli/typed_options.hpp"
#include "loom/core/fs.hpp"
#include "loom/core/memory.hpp"
#include "loom/format/npy.hpp"
#include "loom/core/timer.hpp"
#include "loom/embed/eval/node_features.hpp"
#include "loom/graph/feature_norm.hpp"
#include "loom/graph/finite_values.hpp"
#include "loom/graph/generate/splits.hpp"
#include "loom/graph/io/edgelist.hpp"
#include "loom/graph/io/mag240m.hpp"
#include "loom/graph/io/npy_import.hpp"
#include "loom/graph/io/ogb.hpp"

namespace loom::cli {

namespace {

struct CommonImportOptions {
  std::string source, out;
  bool overwrite = false, directed = false;
  graph::DuplicatePolicy duplicates = graph::DuplicatePolicy::kRemove;
  graph::SelfLoopPolicy self_loops = graph::SelfLoopPolicy::kRemove;
  format::DType feat_dtype = format::DType::kFloat32;
  graph::FeatureLayoutChoice feature_layout = graph::FeatureLayoutChoice::kDense;
  bool feature_layout_given = false;  // on the command line (else a sparse source, feat.npz, stays sparse)
  std::string features;               // embeddings file whose vectors become the node features
  std::vector<double> random_split;   // {train, valid} fractions of the labelled nodes; empty = keep
  std::uint64_t split_seed = 0;
  graph::FeatureNorm normalize = graph::FeatureNorm::kNone;
  std::int64_t build_memory = graph::default_build_memory();
  std::optional<float> nan_as;  // replaces feature values and weights that are not finite

  graph::io::EdgePolicy policy() const {
    graph::io::EdgePolicy p;
    p.directed = directed;
    p.duplicates = duplicates;
    p.self_loops = self_loops;
    return p;
  }
};

// `embedding_features`: --features names an embeddings file (mag240m's --features says where its own
// features go instead).
void add_common_options(CLI::App* sub, CommonImportOptions& c, const std::string& source_help,
                        bool embedding_features = true) {
  sub->add_option("SRC", c.source, source_help)->required();
  sub->add_option("-o,--output", c.out, "Output graph store directory")->required();
  sub->add_flag("--overwrite", c.overwrite, "Replace the output directory if it exists");
  sub->add_flag("--directed", c.directed, "Keep edge direction (default: store both directions)");
  add_enum_option(*sub, "--duplicates", c.duplicates, graph::kDuplicatePolicyNames, "Duplicate edges");
  add_enum_option(*sub, "--self-loops", c.self_loops, graph::kSelfLoopPolicyNames, "Self-loops");
  add_enum_option(*sub, "--feat-dtype", c.feat_dtype, format::kFeatDTypeNames, "Stored feature type");
  add_enum_option(*sub, "--feature-layout", c.feature_layout, graph::kFeatureLayoutChoiceNames,
                  fmt::format("Stored feature rows: dense, sparse (CSR: column indices and values, none where "
                              "every value is 1) or auto (sparse where at most {:g}% of the values are nonzero); "
                              "unless given, a sparse source (import npy's feat.npz) is stored sparse",
                              100 * graph::kAutoSparseDensity));
  if (embedding_features)
    sub->add_option("--features", c.features,
                    "Node features from trained embeddings (word2vec text/binary or .npy, keyed by original node id)");
  sub->add_option("--random-split", c.random_split,
                  "TRAIN,VALID fractions: a random split of the labelled nodes (the rest is test), replacing any split")
      ->delimiter(',');
  sub->add_option("--split-seed", c.split_seed, "Seed of --random-split")->capture_default_str();
  add_enum_option(*sub, "--normalize-features", c.normalize, graph::kFeatureNormNames,
                  "Normalise the stored features (row: by their L1 norms; standard: columns by the training "
                  "nodes' mean and variance)");
  add_build_memory_option(
      *sub, c.build_memory,
      "Memory for the edges in flight, e.g. 4G (default: a tenth of the memory available, 256M to 8G): "
      "edges are spilled to the output folder as they are read and the graph built in passes over them");
  sub->add_option_function<float>(
         "--nan-as", [&c](float value) { c.nan_as = value; },
         "Replace feature values and edge weights that are NaN or infinite by VALUE (counted in the store's "
         "provenance); without it they are an error naming the file, row and column")
      ->option_text("VALUE");
}

// Checked before any input is read.
void check_random_split(const std::vector<double>& fractions) {
  if (fractions.empty()) return;
  LOOM_CHECK_ARG(fractions.size() == 2, "--random-split", "expected TRAIN,VALID fractions, got {} values",
                 fractions.size());
  const double train = fractions[0], valid = fractions[1];
  LOOM_CHECK_ARG(train > 0 && valid >= 0 && train + valid <= 1, "--random-split",
                 "fractions must satisfy 0 < TRAIN, 0 <= VALID, TRAIN + VALID <= 1; got {},{}", train, valid);
}

// --features, --random-split and --normalize-features, applied to the imported graph.
void derive_features_and_split(const CommonImportOptions& c, graph::io::ImportedGraph& g) {
  graph::GraphData& data = g.nodes;
  if (!c.features.empty()) {
    const auto attached = embed::eval::attach_embedding_features(data, embed::read_embeddings(c.features), c.features);
    data.sparse_feat.reset();  // the embeddings are the features now
    graph::NonFinitePolicy non_finite{c.nan_as};
    graph::enforce_finite(data.feat, data.feat_dim, c.features, "embedding", non_finite);
    if (c.nan_as) data.provenance["non_finite_embeddings"] = non_finite.to_json();
    spdlog::info("features: {} of {} nodes got a {}-dim vector from {} ({} vectors name no node)", attached.matched,
                 data.num_rows(), data.feat_dim, c.features, attached.unknown_keys);
  }
  if (!c.random_split.empty()) {
    const double train = c.random_split[0], valid = c.random_split[1];
    data.splits = graph::generate::labelled_random_splits(data, train, valid, c.split_seed);
    data.provenance["random_split"] = {{"train", train}, {"valid", valid}, {"seed", c.split_seed}};
    spdlog::info("random split of the labelled nodes: {} train, {} valid, {} test", data.splits["train"].size(),
                 data.splits["valid"].size(), data.splits["test"].size());
  }
  const bool held = !data.feat.empty() || data.sparse_feat;  // features held in memory
  LOOM_CHECK_ARG(c.normalize == graph::FeatureNorm::kNone || g.streamed_features.dim == 0 || held,
                 "--normalize-features",
                 "this layout's features are streamed into the store, not held in memory, and are stored as "
                 "they are; normalise them in the model (or import the small CSV layout)");
  graph::normalize_features(data, c.normalize);
  LOOM_CHECK_ARG(c.feature_layout == graph::FeatureLayoutChoice::kDense || g.streamed_features.dim == 0 || held,
                 "--feature-layout",
                 "this layout's features are streamed into the store, not held in memory, and are stored dense");
  data.feat_layout =
      data.sparse_feat && !c.feature_layout_given ? graph::FeatureLayoutChoice::kSparse : c.feature_layout;
}

// `read(spill_dir)` parses the input; its edges are spilled into the output's temporary folder
// (or mapped) and the CSR is built out of core from them.
int run_import(const CommonImportOptions& c, const std::function<graph::io::ImportedGraph(const std::string&)>& read) {
  check_random_split(c.random_split);
  core::check_output_apart(c.out, c.source, "-o");
  core::Timer timer;
  core::OutputDir out(c.out, c.overwrite);
  graph::io::ImportedGraph g = read(out.path());
  graph::GraphData& data = g.nodes;
  derive_features_and_split(c, g);
  data.provenance["options"]["feat_dtype"] = format::dtype_name(c.feat_dtype);
  graph::io::write_imported_store(g, out.path(), c.feat_dtype, c.build_memory);
  out.commit();
  const auto& counts = data.provenance["counts"];
  spdlog::info("imported {} nodes and {} stored edges into {} in {:.2f} s ({})", data.num_rows(),
               counts.value("stored_edges", std::int64_t{0}), c.out, timer.seconds(), data.id_map_note);
  if (counts.value("self_loops_removed", 0) > 0 || counts.value("duplicate_entries_removed", 0) > 0)
    spdlog::info("removed {} self-loops and {} duplicate edge entries", counts.value("self_loops_removed", 0),
                 counts.value("duplicate_entries_removed", 0));
  return 0;
}

}  // namespace

void add_import_ogb(CLI::App& import_cmd, Action& action) {
  auto c = std::make_shared<CommonImportOptions>();
  auto split = std::make_shared<std::string>();
  auto* sub =
      import_cmd.add_subcommand("ogb", "Import an OGB node-property raw directory (raw/*.csv.gz, split/<kind>/)");
  add_common_options(sub, *c, "OGB dataset directory (holding raw/ and optionally split/)");
  sub->add_option("--split", *split, "Split kind to import (folder under split/), required when there are several");
  sub->callback([&action, c, split] {
    action = [c, split] {
      return run_import(*c, [&](const std::string& spill_dir) {
        graph::io::OgbImportOptions o;
        o.dir = c->source;
        o.policy = c->policy();
        o.split = *split;
        o.nan_as = c->nan_as;
        return graph::io::read_ogb(o, spill_dir);
      });
    };
  });
}

void add_import_edgelist(CLI::App& import_cmd, Action& action) {
  auto c = std::make_shared<CommonImportOptions>();
  auto o = std::make_shared<graph::io::EdgeListImportOptions>();
  auto string_ids = std::make_shared<bool>(false);
  auto numeric_ids = std::make_shared<bool>(false);
  auto* sub = import_cmd.add_subcommand("edgelist", "Import a SNAP/CSV edge list (gzip or plain)");
  add_common_options(sub, *c, "Edge list file (.gz or plain)");
  sub->add_option("--delimiter", o->delimiter, "auto|whitespace|tab|comma or one separator character")
      ->capture_default_str();
  sub->add_flag("--weighted", o->weighted, "Read field 3 as a float edge weight");
  auto* s = sub->add_flag("--string-ids", *string_ids, "Treat every id as a string (kept in names.txt)");
  sub->add_flag("--numeric-ids", *numeric_ids, "Require integer ids (a non-integer id is an error)")->excludes(s);
  sub->add_option("--num-nodes", o->num_nodes, "Use integer ids as given in [0, N) (no remapping)")
      ->check(CLI::PositiveNumber);
  auto bad_lines = std::make_shared<std::string>("error");
  sub->add_option("--bad-lines", *bad_lines, "Lines that are not edges: error|skip (skipped lines are counted)")
      ->check(CLI::IsMember({"error", "skip"}))
      ->capture_default_str();
  sub->callback([&action, c, o, string_ids, numeric_ids, bad_lines] {
    action = [c, o, string_ids, numeric_ids, bad_lines] {
      return run_import(*c, [&](const std::string& spill_dir) {
        o->path = c->source;
        o->policy = c->policy();
        o->skip_bad_lines = *bad_lines == "skip";
        o->nan_as = c->nan_as;
        o->ids = *string_ids ? graph::io::IdKind::kString
                             : (*numeric_ids ? graph::io::IdKind::kNumeric : graph::io::IdKind::kAuto);
        return graph::io::read_edgelist(*o, spill_dir);
      });
    };
  });
}

void add_import_npy(CLI::App& import_cmd, Action& action) {
  auto c = std::make_shared<CommonImportOptions>();
  auto num_nodes = std::make_shared<std::int64_t>(-1);
  auto* sub = import_cmd.add_subcommand(
      "npy",
      "Import a directory of .npy arrays (src/dst or indptr/indices, feat (or a SciPy sparse feat.npz), label, "
      "splits)");
  add_common_options(sub, *c, "Directory of .npy arrays");
  sub->add_option("--num-nodes", *num_nodes, "Node count (default: from the arrays)")->check(CLI::PositiveNumber);
  sub->callback([&action, c, num_nodes, sub] {
    c->feature_layout_given = sub->count("--feature-layout") > 0;
    action = [c, num_nodes] {
      return run_import(*c, [&](const std::string&) {
        graph::io::NpyImportOptions o;
        o.dir = c->source;
        o.policy = c->policy();
        o.num_nodes = *num_nodes;
        o.nan_as = c->nan_as;
        return graph::io::read_npy(o);
      });
    };
  });
}

void add_import_mag240m(CLI::App& import_cmd, Action& action) {
  auto c = std::make_shared<CommonImportOptions>();
  auto features = std::make_shared<std::string>("copy");
  auto* sub = import_cmd.add_subcommand(
      "mag240m",
      "Import OGB-LSC MAG240M's paper citation graph (processed/paper*, split_dict.pt) as SALIENT++ "
      "trains on it");
  add_common_options(sub, *c, "MAG240M dataset directory (holding processed/ and split_dict.pt)",
                     /*embedding_features=*/false);
  sub->add_option("--features", *features,
                  "copy: the float16 paper features copied into the store (in --feat-dtype); map: left where they are "
                  "and mapped by the store in their own dtype (no second 187 GB copy; the store then needs that file)")
      ->check(CLI::IsMember({"copy", "map"}))
      ->capture_default_str();
  sub->callback([&action, c, features] {
    action = [c, features] {
      return run_import(*c, [&](const std::string&) {
        graph::io::Mag240mImportOptions o;
        o.dir = c->source;
        o.policy = c->policy();
        o.features_mapped = *features == "map";
        o.nan_as = c->nan_as;
        return graph::io::read_mag240m(o);
      });
    };
  });
}

}  // namespace loom::cli
