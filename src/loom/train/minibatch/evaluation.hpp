// Evaluation of a mini-batch model on this rank's valid/test nodes, combined over ranks.
// sampled_scores(): sampled inference in batches (e.g. fanouts 20,20,20), as SALIENT reports.
// exact_inference(): exact layer-wise full-neighbourhood inference (DGL/PyG style): layer l is
// computed for every node this rank owns from the previous layer's rows of its neighbours, which
// are fetched from their owners, so the result equals full-graph inference at any rank count.
// Both are collective over the fetcher's communicator.
#pragma once

#include <span>

#include "loom/comm/communicator.hpp"
#include "loom/nn/model.hpp"
#include "loom/loader/batch_builder.hpp"
#include "loom/scores/node_scores.hpp"

namespace loom::train {

scores::ScoreCounts sampled_scores(nn::GnnModel& model, const loader::BatchBuilder& builder,
                                   std::span<const std::int64_t> ids, std::int64_t batch_size, std::uint64_t seed,
                                   const comm::Communicator& comm, scores::ScoreKind scoring);

struct ExactInference {
  torch::Tensor logits;      // [this rank's nodes, classes], row i = global id offset + i
  torch::Tensor embeddings;  // [this rank's nodes, width]: input of the last layer (undefined for 1 layer)
};

ExactInference exact_inference(nn::GnnModel& model, const loader::TrainingData& data, const comm::Communicator& comm,
                               std::int64_t chunk_size = 8192);

// Scores of `ids` (global, owned by this rank) from exact logits, combined over ranks.
scores::ScoreCounts exact_scores(const ExactInference& result, const loader::BatchBuilder& builder,
                                 const loader::TrainingData& data, std::span<const std::int64_t> ids,
                                 const comm::Communicator& comm);

}  // namespace loom::train
