// Multi-rank SGNS: every rank trains on its share of the corpus, only changed rows travel (on the
// embeddings channel), and all ranks end every run with identical weights, for every combiner;
// rounds are the steps: a run stopped after a round and resumed there reaches the same weights.
#include <cstring>

#include <gtest/gtest.h>

#include "loom/comm/communicator.hpp"
#include "loom/core/rng.hpp"
#include "loom/embed/synced_sgns.hpp"

namespace loom::embed {
namespace {

// 200 sentences over a 50-word vocabulary with two topics (words 0-24 and 25-49).
Corpus topic_corpus(std::vector<std::int64_t>& counts) {
  Corpus c;
  counts.assign(50, 0);
  core::Rng rng(7);
  for (int s = 0; s < 200; ++s) {
    const int topic = s % 2;
    for (int i = 0; i < 20; ++i) {
      const auto w = static_cast<std::int32_t>(topic * 25 + rng.below(25));
      c.tokens.push_back(w);
      ++counts[w];
    }
    c.offsets.push_back(static_cast<std::int64_t>(c.tokens.size()));
  }
  return c;
}

double cosine(const EmbeddingMatrix& m, std::int64_t a, std::int64_t b) {
  double dot = 0, na = 0, nb = 0;
  for (std::int64_t d = 0; d < m.dim(); ++d) {
    dot += m.row(a)[d] * m.row(b)[d];
    na += m.row(a)[d] * m.row(a)[d];
    nb += m.row(b)[d] * m.row(b)[d];
  }
  return dot / std::sqrt(na * nb);
}

SgnsOptions small_options(int epochs) {
  SgnsOptions o;
  o.dim = 16;
  o.window = 3;
  o.negative = 3;
  o.sample = 0;
  o.epochs = epochs;
  o.alpha = 0.05;
  o.threads = 1;
  o.progress = false;
  return o;
}

TEST(SyncedSgns, RanksEndIdenticalAndLearnTheTopics) {
  auto world = comm::Communicator::world();
  std::vector<std::int64_t> counts;
  const Corpus corpus = topic_corpus(counts);
  for (const auto& [combiner, half] : {std::pair{Combiner::kAverage, false}, std::pair{Combiner::kSum, false},
                                       std::pair{Combiner::kGc, false}, std::pair{Combiner::kGc, true}}) {
    const SgnsOptions o = small_options(20);
    SyncOptions sync;
    sync.comm = &world;
    sync.combiner = combiner;
    sync.rounds = 3;
    sync.half_updates = half;
    SgnsModel model = init_sgns_model(50, o);
    const auto before = world.stats();
    SyncStats stats;
    train_sgns_synced(corpus, counts, o, sync, model, &stats);
    const auto moved = (world.stats() - before)[comm::Channel::embeddings];
    EXPECT_EQ(stats.rounds, 60);
    EXPECT_GT(stats.rows_sent, 0);
    EXPECT_GT(moved.bytes_sent, 0u);
    // Identical weights on every rank: compare a checksum of every row with rank 0's.
    std::vector<double> sums(50);
    for (std::int64_t r = 0; r < 50; ++r)
      for (std::int64_t d = 0; d < o.dim; ++d) sums[r] += model.input.row(r)[d] * (d + 1);
    std::vector<double> root = sums;
    world.broadcast(std::span<double>(root), 0, comm::Channel::control);
    EXPECT_EQ(sums, root) << combiner_name(combiner);
    // Words of one topic end closer to each other than to the other topic's.
    double same = 0, other = 0;
    for (int a = 0; a < 10; ++a) {
      same += cosine(model.input, a, a + 10);
      other += cosine(model.input, a, a + 30);
    }
    EXPECT_GT(same, other + 2.0) << combiner_name(combiner) << ": same-topic " << same << ", cross-topic " << other;
  }
}

TEST(SyncedSgns, StoppedAfterARoundAndResumedThereReachesTheSameWeights) {
  auto world = comm::Communicator::world();
  std::vector<std::int64_t> counts;
  const Corpus corpus = topic_corpus(counts);
  const SgnsOptions o = small_options(3);
  SyncOptions sync;
  sync.comm = &world;
  sync.rounds = 3;
  SgnsModel uninterrupted = init_sgns_model(50, o);
  train_sgns_synced(corpus, counts, o, sync, uninterrupted);

  SgnsModel model = init_sgns_model(50, o);
  std::vector<std::string> reached;
  SgnsSteps stop;
  stop.at_boundary = [&](format::CheckpointId id) {
    reached.push_back(id.name());
    return id == format::CheckpointId{1, 2};
  };
  train_sgns_synced(corpus, counts, o, sync, model, nullptr, stop);
  EXPECT_EQ(reached, (std::vector<std::string>{"epoch-0-step-1", "epoch-0-step-2", "epoch-1", "epoch-1-step-1",
                                               "epoch-1-step-2"}));
  SgnsSteps resume;
  resume.start = format::CheckpointId{1, 2};
  train_sgns_synced(corpus, counts, o, sync, model, nullptr, resume);
  const auto bytes = sizeof(float) * static_cast<std::size_t>(model.input.rows() * model.input.stride());
  EXPECT_EQ(std::memcmp(model.input.data(), uninterrupted.input.data(), bytes), 0);
  EXPECT_EQ(std::memcmp(model.output.data(), uninterrupted.output.data(), bytes), 0);
}

TEST(SyncedSgns, RejectsZeroRounds) {
  SyncOptions sync;
  sync.rounds = 0;
  EXPECT_THROW(check(sync), Error);
}

}  // namespace
}  // namespace loom::embed
