// Digests enforced where a store's bytes are read (issue 48): one neighbour id changed within range
// (a damaged copy `loom check` alone used to notice) stops info, train, embed, walk, analyze and
// partition with the file named, and nothing derived is left (partition's store, embed's vectors,
// train's metrics); --no-verify runs on it for users who know; on a partitioned store, every rank of
// an mpirun job stops together.
#include <cstring>
#include <filesystem>

#include <gtest/gtest.h>

#include "loom/format/npy.hpp"
#include "support/test_support.hpp"

namespace loom::test {
namespace {

// Adds 1 (mod the node count) to neighbour id `entry` of `path`: every range still holds.
void nudge_neighbour(const std::string& path, std::int64_t entry, std::int64_t nodes) {
  const format::NpyArray a = format::NpyArray::map(path);
  std::vector<char> bytes(static_cast<const char*>(a.data()), static_cast<const char*>(a.data()) + a.nbytes());
  std::int32_t v = 0;
  std::memcpy(&v, bytes.data() + entry * 4, 4);
  v = static_cast<std::int32_t>((v + 1) % nodes);
  std::memcpy(bytes.data() + entry * 4, &v, 4);
  format::write_npy(path, a.dtype(), a.shape(), bytes.data());  // the recorded digest now differs
}

void expect_digest_named(const CommandResult& r, const std::string& file, const std::string& command) {
  EXPECT_EQ(r.status, 1) << command << "\n" << r.output;
  EXPECT_TRUE(contains(r.output, file + ": digest crc32:")) << command << "\n" << r.output;
  EXPECT_TRUE(contains(r.output, "--no-verify skips this check")) << command << "\n" << r.output;
}

class CliDigests : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(
        run_loom("generate sbm -o " + store + " --nodes 800 --classes 3 --avg-degree 8 --feat-dim 8 --seed 4").status,
        0);
  }
  ScratchDir dir;
  const std::string store = dir / "g";
};

TEST_F(CliDigests, EveryCommandReadingADamagedStoreStopsNamingTheFile) {
  ASSERT_EQ(run_loom("partition " + store + " -k 2 --method random -o " + dir / "p").status, 0);
  nudge_neighbour(store + "/indices.npy", 100, 800);
  for (const std::string& command :
       {"info " + store, "train " + store + " --epochs 1 --hidden 8 --quiet --metrics " + dir / "m.jsonl",
        "embed deepwalk " + store + " -o " + dir / "e.txt" + " --walks 1 --length 4 --dim 4 --threads 1",
        "walk " + store + " --walks 1 --length 4", "partition " + store + " -k 2 -o " + dir / "p2"})
    expect_digest_named(run_loom(command), store + "/indices.npy", command);
  EXPECT_FALSE(std::filesystem::exists(dir / "p2")) << "partition wrote a store derived from a damaged one";
  EXPECT_FALSE(std::filesystem::exists(dir / "e.txt"));
  EXPECT_FALSE(std::filesystem::exists(dir / "m.jsonl")) << "the setup's metrics of a damaged store were left";
  const auto unchecked = run_loom("train " + store + " --epochs 1 --hidden 8 --quiet --no-verify");
  EXPECT_EQ(unchecked.status, 0) << unchecked.output;

  nudge_neighbour(dir / "p/topology/indices.npy", 7, 800);
  const std::string analyze = "analyze cache " + dir / "p" + " --fanouts 3,2 --epochs 1";
  expect_digest_named(run_loom(analyze), dir / "p/topology/indices.npy", analyze);
}

TEST_F(CliDigests, EveryRankOfAJobStopsOnADamagedPart) {
  ASSERT_EQ(run_loom("partition " + store + " -k 2 --method random -o " + dir / "p").status, 0);
  const format::NpyArray feat = format::NpyArray::map(dir / "p/part-1/feat.npy");
  std::vector<char> bytes(static_cast<const char*>(feat.data()), static_cast<const char*>(feat.data()) + feat.nbytes());
  bytes[bytes.size() - 3] ^= 1;  // a feature value a little off: only its digest tells
  format::write_npy(dir / "p/part-1/feat.npy", feat.dtype(), feat.shape(), bytes.data());
  const auto r = run_command(
      "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout 120 mpirun -np 2 --oversubscribe -q " +
      loom_binary() + " train " + dir / "p" + " --epochs 1 --hidden 8 --quiet 2>&1");
  EXPECT_NE(r.status, 0) << r.output;
  EXPECT_NE(r.status, 124) << "the job hung:\n" << r.output;
  EXPECT_TRUE(contains(r.output, "part-1/feat.npy: digest crc32:")) << r.output;
}

}  // namespace
}  // namespace loom::test
