// `loom import mag240m`: OGB-LSC MAG240M's paper-cites-paper graph as SALIENT++ trains on it,
// from the layout the dataset downloads to:
//   processed/paper/node_feat.npy                       float16 [papers, 768]
//   processed/paper/node_label.npy                      float [papers], NaN = unlabelled (153 classes)
//   processed/paper/node_year.npy                       int [papers] (optional, kept as node_year)
//   processed/paper___cites___paper/edge_index.npy      int64 [2, citations]
//   split_dict.pt                                       train / valid / test-dev / test-challenge ids
// The citations are stored in both directions unless the policy keeps them directed. The
// features are copied into the store in its dtype, or (features_mapped) left where they are and
// mapped by the store (meta.feat_from): no second copy of 187 GB. Arrays are mapped and read in
// chunks: memory O(papers) plus buffers. Mismatched sizes or ids out of range throw Error naming
// the file.
#pragma once

#include <optional>
#include <string>

#include "loom/graph/io/import_common.hpp"

namespace loom::graph::io {

struct Mag240mImportOptions {
  std::string dir;
  EdgePolicy policy;
  bool features_mapped = false;
  std::optional<float> nan_as;
};

ImportedGraph read_mag240m(const Mag240mImportOptions& options);

}  // namespace loom::graph::io
