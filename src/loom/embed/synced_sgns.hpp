// Distributed SGNS (GraphAny2Vec): with a communicator of K > 1 ranks, every rank holds the same
// corpus and model and trains on its own contiguous share of the sentences (balanced by tokens),
// or, with `local_corpus`, holds only its own sentences (the walks from its start nodes), and
// after each of `rounds` synchronisation rounds per epoch the ranks exchange only the rows they
// changed (sparse: row ids and their updates, for the input and output matrices) over
// comm::Channel::embeddings and apply the combined update (combiner.hpp), so every rank ends the
// round with identical weights. The learning rate decays over the whole run as in one process.
// The rounds are its steps (SgnsSteps): a run resumed after round R of epoch E continues as the
// uninterrupted run would. With no communicator or one rank it is train_sgns(). Collective.
#pragma once

#include "loom/comm/communicator.hpp"
#include "loom/embed/combiner.hpp"
#include "loom/embed/sgns.hpp"

namespace loom::embed {

struct SyncOptions {
  const comm::Communicator* comm = nullptr;  // null: train in this process alone
  Combiner combiner = Combiner::kGc;
  int rounds = 64;            // synchronisation rounds per epoch (fewer: less traffic, staler updates)
  bool half_updates = false;  // send row updates as float16 (half the bytes)
  bool local_corpus = false;  // each rank passes its own corpus (e.g. its walks), trained whole
};

// Throws Error naming --rounds when rounds < 1.
void check(const SyncOptions& options);

struct SyncStats {
  std::int64_t rounds = 0;
  std::int64_t rows_sent = 0;  // rows this rank sent (input + output), all rounds
  double sync_seconds = 0;     // time spent exchanging and combining
};

SgnsStats train_sgns_synced(const Corpus& corpus, std::span<const std::int64_t> counts, const SgnsOptions& options,
                            const SyncOptions& sync, SgnsModel& model, SyncStats* sync_stats = nullptr,
                            const SgnsSteps& steps = {});

}  // namespace loom::embed
