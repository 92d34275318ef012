// SGNS checkpoints in one process: epochs are the steps; a hook that stops training after an
// epoch and a run resumed there reach the weights of an uninterrupted run bit for bit; periodic
// checkpoints do not change the result, a resumed run starts from the newest intact one (a
// corrupted newer one is skipped), and a checkpoint of other options is refused by name.
#include <cstring>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "loom/core/error.hpp"
#include "loom/core/rng.hpp"
#include "loom/embed/sgns_checkpoint.hpp"

namespace loom::embed {
namespace {

namespace fs = std::filesystem;

// 300 sentences of 10 words over a 40-word vocabulary.
Corpus random_corpus(std::vector<std::int64_t>& counts) {
  Corpus corpus;
  counts.assign(40, 0);
  core::Rng rng(5);
  for (int s = 0; s < 300; ++s) {
    for (int i = 0; i < 10; ++i) {
      const auto w = static_cast<std::int32_t>(rng.below(40));
      corpus.tokens.push_back(w);
      ++counts[static_cast<std::size_t>(w)];
    }
    corpus.offsets.push_back(static_cast<std::int64_t>(corpus.tokens.size()));
  }
  return corpus;
}

SgnsOptions options() {
  SgnsOptions o;
  o.dim = 8;
  o.window = 3;
  o.negative = 3;
  o.epochs = 4;
  o.threads = 1;
  o.progress = false;
  return o;
}

bool same_weights(const SgnsModel& a, const SgnsModel& b) {
  const auto bytes = sizeof(float) * static_cast<std::size_t>(a.input.rows() * a.input.stride());
  return std::memcmp(a.input.data(), b.input.data(), bytes) == 0 &&
         std::memcmp(a.output.data(), b.output.data(), bytes) == 0;
}

void copy_weights(const SgnsModel& from, SgnsModel& to) {
  const auto bytes = sizeof(float) * static_cast<std::size_t>(from.input.rows() * from.input.stride());
  std::memcpy(to.input.data(), from.input.data(), bytes);
  std::memcpy(to.output.data(), from.output.data(), bytes);
}

class SgnsCheckpoint : public ::testing::Test {
 protected:
  void SetUp() override {
    corpus = random_corpus(counts);
    dir = (fs::temp_directory_path() / ("loom-sgns-ck-" + std::to_string(::getpid()))).string();
    fs::remove_all(dir);
    uninterrupted = init_sgns_model(40, options());
    train_sgns(corpus, counts, options(), uninterrupted);
  }
  void TearDown() override { fs::remove_all(dir); }

  SgnsStats train(const SgnsCheckpoints& checkpoints, SgnsModel& model, const SgnsOptions& o = options()) {
    return train_sgns_checkpointed(corpus, counts, o, SyncOptions{}, checkpoints, model);
  }

  Corpus corpus;
  std::vector<std::int64_t> counts;
  std::string dir;
  SgnsModel uninterrupted;
};

TEST_F(SgnsCheckpoint, StoppedAtAnEpochAndResumedThereReachesTheSameWeights) {
  SgnsModel stopped = init_sgns_model(40, options());
  SgnsSteps stop_after_two;
  int boundaries = 0;
  stop_after_two.at_boundary = [&](format::CheckpointId reached) {
    ++boundaries;
    return reached.epochs == 2;
  };
  train_sgns(corpus, counts, options(), stopped, stop_after_two);
  EXPECT_EQ(boundaries, 2);
  EXPECT_FALSE(same_weights(stopped, uninterrupted));
  SgnsModel resumed = init_sgns_model(40, options());
  copy_weights(stopped, resumed);
  SgnsSteps from_two;
  from_two.start = format::CheckpointId{2};
  train_sgns(corpus, counts, options(), resumed, from_two);
  EXPECT_TRUE(same_weights(resumed, uninterrupted));
}

TEST_F(SgnsCheckpoint, PeriodicCheckpointsChangeNothingAndResumeFromTheNewestIntact) {
  SgnsCheckpoints checkpoints{.dir = dir, .every = 1, .keep = 2};
  SgnsModel saved = init_sgns_model(40, options());
  train(checkpoints, saved);
  EXPECT_TRUE(same_weights(saved, uninterrupted));
  // Epochs 1-3 were saved (not the end), the newest 2 kept.
  EXPECT_FALSE(fs::exists(dir + "/epoch-1"));
  EXPECT_TRUE(fs::exists(dir + "/epoch-2/input.npy"));
  EXPECT_TRUE(fs::exists(dir + "/epoch-3/output.npy"));
  EXPECT_FALSE(fs::exists(dir + "/epoch-4"));

  {  // corrupt the newest: one byte of its input weights
    std::fstream file(dir + "/epoch-3/input.npy", std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(200);
    file.put('\x7f');
  }
  checkpoints.resume = true;
  SgnsModel resumed = init_sgns_model(40, options());
  const SgnsStats stats = train(checkpoints, resumed);
  EXPECT_TRUE(same_weights(resumed, uninterrupted));
  EXPECT_EQ(stats.words, 2 * corpus.num_tokens());  // epochs 3 and 4
  EXPECT_EQ(stats.stopped_by, 0);
}

TEST_F(SgnsCheckpoint, ResumingWithOtherOptionsNamesTheCheckpoint) {
  SgnsModel model = init_sgns_model(40, options());
  train({.dir = dir, .every = 2}, model);
  SgnsOptions longer = options();
  longer.epochs = 6;
  SgnsModel other = init_sgns_model(40, longer);
  try {
    train({.dir = dir, .resume = true}, other, longer);
    FAIL() << "resumed from a checkpoint of other options";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(dir + "/epoch-2"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("epochs=4"), std::string::npos) << e.what();
  }
}

TEST_F(SgnsCheckpoint, ResumeWithoutADirectoryNamesTheOption) {
  SgnsModel model = init_sgns_model(40, options());
  try {
    train({.dir = "", .every = 0, .keep = 0, .resume = true}, model);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--resume"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace loom::embed
