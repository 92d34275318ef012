// Trained embeddings as the node features of a graph: `loom import ... --features EMB` gives a
// featureless graph (BlogCatalog, PPI) features a GNN can train on, e.g. the DeepWalk vectors
// `loom embed deepwalk` wrote for the same graph. Vectors are matched to rows by node key
// (original id or name, as node_keys() gives it); rows without a vector get zeros.
#pragma once

#include <cstdint>
#include <string>

#include "loom/embed/embeddings_io.hpp"
#include "loom/graph/store.hpp"

namespace loom::embed::eval {

struct FeatureAttachment {
  std::int64_t matched = 0;       // rows that got a vector
  std::int64_t unknown_keys = 0;  // vectors whose key names no row
};

// Replaces data.feat / data.feat_dim with the aligned vectors. Throws Error naming `source` when
// no row of `data` has a vector (the file belongs to another graph).
FeatureAttachment attach_embedding_features(graph::GraphData& data, const Embeddings& embeddings,
                                            const std::string& source);

}  // namespace loom::embed::eval
