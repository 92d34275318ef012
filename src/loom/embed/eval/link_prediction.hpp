// Link prediction with embeddings, the node2vec protocol.
// linkpred_split: of an undirected graph's E edges (self-loops ignored), removes
// round(remove_fraction * E) while keeping every connected component connected: a random spanning
// forest (random edge order + union-find) is never removed, the other edges are removed in a random
// order (fewer than asked when the non-forest edges run out; `removed_edges` says how many). The
// removed edges are the positive pairs; as many negative pairs are drawn uniformly among node pairs
// that are not edges of the full graph (distinct, u != v). Positives and negatives are each split
// train_fraction / rest into the classifier's train and test pairs. The residual graph (same nodes
// and ids, the kept edges in both directions, sorted rows) is what the embedding must be trained on.
// Deterministic for a seed.
// evaluate_link_prediction: edge features from the two endpoint vectors (Hadamard by default),
// L2 logistic regression on the train pairs, ROC-AUC of its scores on the test pairs. Pairs with an
// endpoint without a vector are skipped and counted.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "loom/core/enum_names.hpp"
#include "loom/embed/eval/logistic.hpp"
#include "loom/embed/eval/node_classification.hpp"
#include "loom/graph/csr.hpp"
#include "loom/graph/store.hpp"

namespace loom::embed::eval {

struct LinkSplitOptions {
  double remove_fraction = 0.5;  // of the undirected edges, in (0, 1)
  double train_fraction = 0.5;   // of the labelled pairs, for the classifier, in (0, 1)
  std::uint64_t seed = 1;
};

struct NodePair {
  std::int64_t u = 0, v = 0;
};

struct LinkSplit {
  graph::GraphData residual;  // undirected, the store's nodes and id map, no features or labels
  std::vector<NodePair> train_pairs, test_pairs;
  std::vector<std::uint8_t> train_labels, test_labels;  // 1 = removed edge, 0 = non-edge
  std::int64_t total_edges = 0;                         // undirected edges of the input (self-loops excluded)
  std::int64_t removed_edges = 0;                       // held out as positives
};

// Throws Error when the csr is not square and symmetric with sorted rows, options are out of range
// ("--remove-fraction", "--train-fraction"), or there are too few non-edges for the negatives.
LinkSplit linkpred_split(const graph::Csr& csr, const LinkSplitOptions& options);
// Same, from a store (which must be undirected); the residual keeps the store's original ids/names.
LinkSplit linkpred_split(const graph::GraphStore& store, const LinkSplitOptions& options);

enum class EdgeOperator { kHadamard, kAverage, kL1, kL2 };
inline constexpr core::EnumNames<EdgeOperator, 4> kEdgeOperatorNames{{{"hadamard", EdgeOperator::kHadamard},
                                                                      {"average", EdgeOperator::kAverage},
                                                                      {"l1", EdgeOperator::kL1},
                                                                      {"l2", EdgeOperator::kL2}}};
inline std::string edge_operator_name(EdgeOperator op) { return core::enum_name(kEdgeOperatorNames, op); }

struct LinkPredResult {
  double auc = 0;
  std::int64_t train_pairs = 0, test_pairs = 0;
  std::int64_t skipped_pairs = 0;  // an endpoint had no vector
};

LinkPredResult evaluate_link_prediction(const NodeVectors& vectors, const LinkSplit& split, EdgeOperator op,
                                        const LogisticOptions& options);

}  // namespace loom::embed::eval
