// Node classification with embeddings, the DeepWalk/node2vec protocol: for each train ratio and
// repeat, the labelled nodes that have a vector are shuffled (seeded by (seed, repeat), the same
// order for every ratio), the first ratio * n train one-vs-rest L2 logistic regressions
// (logistic.hpp) and the rest are predicted by top-k: each test node gets its k highest-scoring
// classes, k = its true class count (k = 1, i.e. argmax, for single-label graphs). Reports micro- and
// macro-F1 per run and their mean and standard deviation per ratio. Nodes without labels (-1, or no
// class set) or without a vector are left out and counted.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "loom/embed/eval/logistic.hpp"
#include "loom/embed/eval/metrics.hpp"
#include "loom/graph/store.hpp"

namespace loom::embed::eval {

// Embedding vectors aligned with a graph store's rows.
struct NodeVectors {
  std::int64_t num_nodes = 0, dim = 0;
  std::vector<float> data;            // num_nodes * dim, row-major
  std::vector<std::uint8_t> present;  // num_nodes: 1 where the node has a vector
};

// Class membership as a num_nodes x num_classes 0/1 matrix.
struct NodeLabels {
  std::int64_t num_nodes = 0, num_classes = 0;
  bool multi_label = false;
  std::vector<std::uint8_t> matrix;
};

// From label.npy (single-label int64 ids with -1 = unlabeled, or a multi-label uint8 matrix).
// Throws Error naming the store when it has no labels.
NodeLabels labels_from_store(const graph::GraphStore& store);

struct NodeClassOptions {
  std::vector<double> train_ratios{0.1, 0.5, 0.9};  // each in (0, 1)
  int repeats = 5;
  std::uint64_t seed = 1;
  LogisticOptions logistic{};
};

struct RatioScores {
  double ratio = 0;
  std::int64_t train_nodes = 0, test_nodes = 0;
  std::vector<F1Scores> runs;  // one per repeat
  F1Scores mean, stddev;
};

struct NodeClassResult {
  std::int64_t evaluated_nodes = 0;  // labelled nodes with a vector
  std::int64_t unlabeled_nodes = 0;
  std::int64_t missing_vectors = 0;  // labelled nodes without a vector
  bool multi_label = false;
  std::vector<RatioScores> ratios;

  nlohmann::json to_json() const;
  std::string to_table() const;  // a plain-text table, one line per ratio
};

// Throws Error::in_argument for a ratio outside (0, 1) ("--ratios") or repeats < 1 ("--repeats"),
// Error when vectors and labels disagree on the node count or fewer than 2 nodes are evaluable.
NodeClassResult evaluate_node_classification(const NodeVectors& vectors, const NodeLabels& labels,
                                             const NodeClassOptions& options);

}  // namespace loom::embed::eval
