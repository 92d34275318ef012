// Final outputs of a trained model, keyed by the user's original node ids: rank 0 gathers every
// rank's rows (ranks in order, so their rows must follow global id order) and writes `dir`
// atomically with
//   predictions.npy   int64 [nodes] predicted class (uint8 [nodes, labels] for multi-label)
//   node_ids.npy      int64 [nodes] original id of each row (or node_names.txt for string ids)
//   embeddings.npy    float32 [nodes, width] input of the last layer (where given)
// A rank without rows passes undefined tensors and empty ids. Collective over `comm`.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include <torch/types.h>

#include "loom/comm/communicator.hpp"
#include "loom/train/run_options.hpp"
#include "loom/scores/score_kind.hpp"

namespace loom::train {

struct NodeOutputs {
  torch::Tensor logits;                                      // [rows, classes] (any device)
  torch::Tensor embeddings;                                  // [rows, width], or undefined for none
  std::span<const std::int64_t> original_ids;                // [rows], or empty where the graph names its nodes
  std::span<const std::string> original_names;               // [rows], or empty
  scores::ScoreKind scoring = scores::ScoreKind::kAccuracy;  // micro-F1: one 0/1 prediction per class
  std::int64_t num_classes = 0, num_nodes = 0;               // of the whole graph
};

// What a training run writes besides its outputs directory: where, and against what it is checked.
struct TrainingOutputs {
  const OutputOptions& output;
  const CheckpointOptions& checkpoint;
  std::string store;         // the input, which no output may replace
  std::string decision_log;  // this rank's --decision-log file (decision_log_path), or ""
};

// Checks --output / --metrics / --checkpoint-dir / --decision-log / --save-embeddings / --overwrite
// before training: --save-embeddings needs an --output; no output may be the store or a folder
// holding it; on every rank, an existing decision log of its own needs --overwrite; and on the
// writing rank (`writer`) an existing
// --output or --metrics needs --overwrite (--metrics also --resume, whose log is
// checked against its checkpoint: core/metrics.hpp), and a --checkpoint-dir holding an earlier
// run's checkpoints needs --resume or --overwrite. Throws loom::Error naming the argument.
void check_output_options(const TrainingOutputs& outputs, bool writer);

// `dir` is --output; `overwrite` replaces an existing one.
void write_training_outputs(const std::string& dir, bool overwrite, const NodeOutputs& rows,
                            const comm::Communicator& comm);

}  // namespace loom::train
