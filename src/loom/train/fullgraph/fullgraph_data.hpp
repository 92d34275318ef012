// The rows one rank of full-graph training reads from a partitioned store, per chunk of its way
// (chunk_set.hpp): input features (for the ranks that run the model's input part) and labels
// with split rows and the rows' original ids (for the last stage). Nothing else is loaded;
// topology comes from the store's replicated whole graph. Throws loom::Error naming the part
// directory on missing data.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <torch/types.h>

#include "loom/partition/partitioned_store.hpp"
#include "loom/train/fullgraph/fullgraph_layout.hpp"
#include "loom/scores/score_kind.hpp"

namespace loom::train {

struct ChunkRows {
  torch::Tensor features;                   // float32 [n, F], sparse CSR from a sparse store (undefined unless loaded)
  torch::Tensor labels;                     // int64 [n] or float [n, C] (undefined unless loaded)
  torch::Tensor train, valid, test;         // int64 local rows of each split
  std::vector<std::int64_t> original_ids;   // the user's id of each row (with labels; empty for names)
  std::vector<std::string> original_names;  // or the user's name of each row
};

struct FullGraphData {
  std::int64_t feat_dim = 0, num_classes = 0, num_nodes = 0, num_train = 0;
  scores::ScoreKind scoring = scores::ScoreKind::kAccuracy;
  std::vector<ChunkRows> chunks;  // [chunk of this rank's way]
};

FullGraphData load_fullgraph_data(const partition::PartitionedStore& store, const FullGraphLayout& layout,
                                  bool load_features, bool load_labels);

// Moves every loaded tensor to `device`.
void move_to(FullGraphData& data, torch::Device device);

}  // namespace loom::train
