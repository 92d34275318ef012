// Scores of labelled node pairs under a model and decoder, for link prediction's validation and
// test: the pairs (this rank's) in batches of `batch_size` pairs, each batch the neighbourhoods of
// its distinct endpoints sampled by `builder` (the evaluation fanouts; -1: exact), embedded in
// eval mode without gradients, and each pair scored by the decoder. Collective over the fetch
// communicator: every rank runs the most steps any rank needs.
#pragma once

#include <cstdint>
#include <vector>

#include "loom/comm/communicator.hpp"
#include "loom/nn/link_decoder.hpp"
#include "loom/nn/model.hpp"
#include "loom/loader/batch_builder.hpp"
#include "loom/loader/link_batches.hpp"

namespace loom::train {

struct PairScores {
  std::vector<float> positive, negative;  // decoder logits of the pairs labelled 1 and 0
};

PairScores score_pairs(nn::GnnModel& model, nn::LinkDecoder& decoder, const loader::BatchBuilder& builder,
                       const loader::LinkPairs& pairs, std::int64_t batch_size, std::uint64_t seed,
                       const comm::Communicator& comm);

}  // namespace loom::train
