// Link prediction's held-out edges, split by Loom itself (PyG's RandomLinkSplit, done at start-up
// on every rank alike): each edge (each undirected edge once, self-loops left out) is held out for
// validation with probability `valid` and for test with probability `test`, decided by a hash of
// (seed, its endpoints' rows in the source store), so a store and any partition of it hold out the
// same edges. Held-out edges leave the message graph (both directions of an undirected edge);
// the rest are the training positives. Each held-out positive (u, v) gets `eval_negatives`
// negatives (u, w): w drawn uniformly, never u nor a neighbour of u in the whole graph. A rank
// keeps the pairs whose first endpoint it owns (the smaller id of an undirected edge).
#pragma once

#include <cstdint>
#include <optional>

#include "loom/graph/csr.hpp"
#include "loom/loader/link_batches.hpp"
#include "loom/loader/training_data.hpp"

namespace loom::loader {

struct LinkSplitOptions {
  double valid = 0.05;  // fractions of the edges held out, valid + test < 1
  double test = 0.1;
  int eval_negatives = 1;  // negatives per held-out positive
  std::uint64_t seed = 0;
};

struct LinkSplit {
  std::optional<graph::Csr> message_graph;  // the whole graph less the held-out edges (unset: none held out)
  LinkPairs train;                          // this rank's training positives
  LinkPairs valid, test;                    // this rank's held-out positives, then their negatives
};

// `options` as check_link_options() passes them.
LinkSplit split_links(const TrainingData& data, const LinkSplitOptions& options);

}  // namespace loom::loader
