// TrainingData: what one rank of a (mini-batch or full-graph) trainer sees of a dataset, the
// same way whether the input is a plain graph store (a world of one rank: one part owning every
// id) or a K-way partitioned store (one part per rank). It holds the replicated topology (the
// whole graph's CSR in global ids, mapped), the partition book, this rank's own feature rows and
// labels, its split ids as GLOBAL ids, and the original ids of its rows for outputs.
// open_training_data() validates the input against the world (a plain store with K > 1 ranks,
// K different from the part count, missing features/labels/splits) on every rank, so that all
// ranks fail together with one message.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "loom/comm/communicator.hpp"
#include "loom/core/metrics.hpp"
#include "loom/feature/row_table.hpp"
#include "loom/graph/feature_norm.hpp"
#include "loom/graph/store.hpp"
#include "loom/partition/partitioned_store.hpp"
#include "loom/scores/score_kind.hpp"

namespace loom::loader {

struct TrainingData {
  std::string path;
  bool partitioned = false;
  graph::GraphStore topology;  // whole graph, global ids
  partition::PartitionBook book;
  int rank = 0;
  std::int64_t offset = 0;  // first global id this rank owns
  std::int64_t num_local = 0;
  feature::RowTable features;  // this rank's rows
  std::int64_t feat_dim = 0;
  std::int64_t num_classes = 0;
  scores::ScoreKind scoring = scores::ScoreKind::kAccuracy;  // micro-F1: several labels per node
  format::NpyArray labels;  // this rank's rows: int64 [n] (accuracy) or uint8 [n, classes] (micro-F1)
  std::vector<std::int64_t> train_ids, valid_ids, test_ids;  // global ids owned by this rank
  std::vector<std::int64_t> halo_ids;      // sorted global ids of remote neighbours of this rank's nodes
  std::vector<std::int64_t> original_ids;  // original id of each local row (empty for names)
  std::vector<std::string> original_names;
  // Link prediction: the topology less its held-out edges (link_split.hpp), which batches are
  // sampled on; unset for node tasks.
  std::optional<graph::Csr> message_graph;
  // Link prediction on a partitioned store: the source store's row of every global id (empty:
  // global ids are the source's rows), so that held-out edges do not depend on the partition.
  std::vector<std::int64_t> source_rows;
  std::int64_t num_nodes() const { return book.num_nodes(); }
  // The graph batches are sampled on.
  const graph::Csr& graph() const { return message_graph ? *message_graph : topology.csr(); }
};

// What a trainer reads of the store besides its features: node labels and the store's
// train/valid/test splits (`loom train`), labels with the seeds given by the caller (a Loader's
// input_nodes: splits are read where the store has them), or neither (link prediction: the
// edges are the training signal; labels and splits are read where present).
enum class DataUse { kNodeSplits, kGivenSeeds, kLinks };

// Every global id this rank owns, ascending (link prediction's stand-in for training seeds, which
// the cache policies rank remote rows by).
std::vector<std::int64_t> own_ids(const TrainingData& data);

// Collective over `world`. Throws (on every rank) an Error naming the store and the problem.
TrainingData open_training_data(const std::string& path, const comm::Communicator& world,
                                DataUse use = DataUse::kNodeSplits);

// Replaces this rank's feature rows by a normalised float32 copy (graph::FeatureNorm; `standard`
// fits on the training nodes of every rank, combined by one all-reduce). Collective; kNone
// leaves the (mapped) rows as they are.
void normalize_training_features(TrainingData& data, graph::FeatureNorm norm, const comm::Communicator& world);

}  // namespace loom::loader
