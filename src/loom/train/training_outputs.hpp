// Final outputs of a trained model, keyed by the user's original node ids: rank 0 gathers every
// rank's rows (in global id order) and writes OUTPUT_DIR atomically with
//   predictions.npy   int64 [nodes] predicted class (uint8 [nodes, labels] for multi-label)
//   node_ids.npy      int64 [nodes] original id of each row (or node_names.txt for string ids)
//   embeddings.npy    float32 [nodes, width] input of the last layer (with save_embeddings)
// Collective over `comm`.
#pragma once

#include "loom/comm/communicator.hpp"
#include "loom/train/evaluation.hpp"
#include "loom/train/minibatch_options.hpp"

namespace loom::train {

void write_training_outputs(const MinibatchOptions& options, const TrainingData& data, const ExactInference& exact,
                            const comm::Communicator& comm);

}  // namespace loom::train
