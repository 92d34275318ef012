// loom.Loader's keywords as the Python package hands them over: one dict per option group
// (sampling, data_path, cache, prefetch, link), each read into its group of the data path's
// options (loader::LoaderOptions), this rank's runtime (nn::RankOptions) or the link mode's
// settings. A keyword left out keeps `loom train`'s default; a value of the wrong
// type, or not among a choice's names, is a loom::Error naming the keyword (Python's name); a
// keyword the group does not know is an Error too.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "bindings.hpp"
#include "loom/loader/link_batches.hpp"
#include "loom/loader/loader_options.hpp"
#include "loom/nn/rank_runtime.hpp"

namespace loom::python {

struct LoaderKeywords {
  py::dict sampling;   // batch_size, seed, threads, shuffle, eval_fanouts, device
  py::dict data_path;  // pipeline_depth, superbatch, wire_dtype, normalize_features, gcn_norm, net_*
  py::dict cache;      // cache, alpha, cache_dtype
  py::dict prefetch;   // controller, prefetch, lookahead
  py::dict link;       // task, edge_label_index, edge_label, neg_sampling_ratio, neg_sampling, drop_target_edges
};

// What a link-mode Loader trains on: the pairs given (edge_label_index, edge_label: PyG's), or
// every edge of the graph, with `negative_ratio` negatives per pair drawn as `negatives` says.
struct LinkSeeds {
  std::optional<torch::Tensor> edge_label_index, edge_label;
  loader::NegativeSampling negatives = loader::NegativeSampling::kUniform;
  double negative_ratio = 1.0;
  bool drop_positive_edges = false;  // each batch's positives left out of its message graph
};

// What a Loader runs with. `links`: link batches (loom.LinkLoader); none: node batches.
struct LoaderSettings {
  loader::LoaderOptions data;
  nn::RankOptions rank;
  std::optional<LinkSeeds> links;
};

// The settings of a Loader over `store` with `fanouts` (one layer per fanout), from its keywords;
// `has_input_nodes`: whether node ids were given (node batches only).
LoaderSettings loader_settings(const PathArg& store, std::vector<std::int32_t> fanouts, const LoaderKeywords& keywords,
                               bool has_input_nodes);

// Checks the settings (loader::check, and the thread count) and throws Error naming the first
// bad one by the Loader's keyword (`lookahead` where `loom train` says --prefetch-lookahead).
loader::CheckedLoaderOptions check(const LoaderSettings& settings);

}  // namespace loom::python
