// DeepWalk and node2vec end to end: random walks over a graph (sample/walk) become a corpus of node
// ids, SGNS (embed/sgns.hpp) trains on it, and the vectors are keyed by each node's ORIGINAL id
// (the store's orig_id / names, or the row id), so users can join them with their own data.
// Lives beside the evaluations because link prediction must embed its residual graph.
//  - node_keys(store or in-memory GraphData): the key written for each row ("17", or the name).
//  - align_to_store / align_to_keys: embedding rows (read from any format embed/embeddings_io
//    reads) matched to rows by key; rows without a vector are marked absent, keys that name no
//    row are counted.
//  - train_graph_embedding: walks + SGNS on a csr whose rows are named by `keys`.
//  - run_embed_graph: the library entry point of `loom embed deepwalk|node2vec`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "loom/embed/embeddings_io.hpp"
#include "loom/embed/eval/node_classification.hpp"
#include "loom/embed/sgns.hpp"
#include "loom/embed/sgns_checkpoint.hpp"
#include "loom/embed/synced_sgns.hpp"
#include "loom/graph/store.hpp"
#include "loom/sample/walk/random_walk.hpp"

namespace loom::embed::eval {

std::vector<std::string> node_keys(const graph::GraphStore& store);
std::vector<std::string> node_keys(const graph::GraphData& data);

struct Alignment {
  NodeVectors vectors;
  std::int64_t matched = 0;       // store rows that got a vector
  std::int64_t unknown_keys = 0;  // embedding words that name no store node
};
Alignment align_to_store(const Embeddings& embeddings, const graph::GraphStore& store);
Alignment align_to_keys(const Embeddings& embeddings, const std::vector<std::string>& keys);

// Defaults of the DeepWalk/node2vec papers' experiments: dim 128, 10 walks of length 80 per node,
// window 10, 5 negatives, 1 epoch, and the skip-gram of the authors' code (gensim): subsampling
// 1e-3, per-pair sequential updates, input rows initialised in [-1/dim, 1/dim). The updates run
// in the shared kernel (one set of negatives per window): the macro-F1 of word2vec.c's per-pair
// hogwild kernel at 4-5x its speed on 2 threads; on BlogCatalog node2vec, sequential updates
// and the wider start are worth +0.004 macro-F1 each over the batched kernel and word2vec.c's
// half as wide start (bench/results/graph_embed.md).
struct GraphEmbedOptions {
  sample::walk::WalkOptions walks{};
  SgnsOptions sgns = default_graph_sgns();
  SyncOptions sync;  // with K > 1 ranks: each trains on its share of the walks
  SgnsCheckpoints checkpoints;
  bool progress = true;

  static SgnsOptions default_graph_sgns();
};

struct GraphEmbedding {
  Embeddings embeddings;  // words = node keys, in vocabulary (visit frequency) order
  NodeVectors vectors;    // the same vectors by csr row
  std::int64_t walk_steps = 0;
  double walk_seconds = 0;
  SgnsStats train;
};

// Throws Error::in_argument for bad walk or SGNS options, Error when keys.size() != rows.
GraphEmbedding train_graph_embedding(const graph::Csr& csr, const std::vector<std::string>& keys,
                                     const GraphEmbedOptions& options);

struct EmbedGraphOptions {
  std::string store, output;
  EmbeddingFormat format = EmbeddingFormat::kText;
  GraphEmbedOptions graph{};
};

struct EmbedGraphResult {
  std::int64_t nodes = 0, vectors = 0;
  std::int64_t walk_steps = 0;
  double walk_seconds = 0, walk_steps_per_second = 0;
  SgnsStats train;
};

// Opens the store (undirected or directed, not a partition), embeds it and writes the vectors
// atomically to options.output. Options are checked before any work. On SIGTERM / SIGINT it stops
// at the next step boundary (sgns_checkpoint.hpp) and writes no output (result.train.stopped_by).
EmbedGraphResult run_embed_graph(const EmbedGraphOptions& options);

}  // namespace loom::embed::eval
