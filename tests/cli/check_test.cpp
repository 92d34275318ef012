// `loom check` and damaged stores: a store as written passes; each invariant broken once, in a plain
// store and in a partitioned one, is named by `loom check` (file and entry, exit 1) and by every
// command that opens the store (`info`, `train`, `analyze cache`: one error naming the file, never
// a crash); a byte flipped in the features is caught by its digest alone.
#include <cstring>
#include <functional>

#include <gtest/gtest.h>

#include "loom/format/npy.hpp"
#include "loom/graph/generate/sbm.hpp"
#include "support/test_support.hpp"

namespace loom::test {
namespace {

std::string make_store(const ScratchDir& dir) {
  graph::generate::SbmOptions o;
  o.nodes = 600;
  o.classes = 3;
  o.avg_degree = 8;
  o.feat_dim = 8;
  o.train = 0.3;
  o.valid = 0.2;
  o.seed = 2;
  const std::string path = dir / "g";
  graph::generate::generate_sbm_store(o, path, {});
  return path;
}

// Rewrites the int64 or int32 array at `path` with entry `i` set to `value` (its digest goes stale,
// as a bad copy's would).
void set_entry(const std::string& path, std::int64_t i, std::int64_t value) {
  const format::NpyArray a = format::NpyArray::map(path);
  std::vector<char> bytes(static_cast<const char*>(a.data()), static_cast<const char*>(a.data()) + a.nbytes());
  if (a.dtype() == format::DType::kInt32) {
    const auto v = static_cast<std::int32_t>(value);
    std::memcpy(bytes.data() + i * 4, &v, 4);
  } else {
    std::memcpy(bytes.data() + i * 8, &value, 8);
  }
  format::write_npy(path, a.dtype(), a.shape(), bytes.data());
}

// `loom check` exits 1 naming `file` and `message`; `info` fails with one error naming the file.
void expect_named(const std::string& store, const std::string& file, const std::string& message) {
  const auto check = run_loom("check " + store);
  EXPECT_EQ(check.status, 1) << check.output;
  EXPECT_TRUE(contains(check.output, file + ": " + message) || contains(check.output, file + ": entry"))
      << check.output;
  EXPECT_TRUE(contains(check.output, message)) << check.output;
  const auto info = run_loom("info " + store);
  EXPECT_NE(info.status, 0) << info.output;
  EXPECT_NE(info.status, 139) << "a crash: " << info.output;
  EXPECT_TRUE(contains(info.output, "loom: error: " + file)) << info.output;
}

TEST(CliCheck, AStoreAsWrittenPassesAndRecordsADigestPerFile) {
  ScratchDir dir;
  const std::string store = make_store(dir);
  const auto r = run_loom("check " + store);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "ok, every digest and invariant holds")) << r.output;
  const auto json = run_loom("check --json " + store);
  EXPECT_TRUE(contains(json.output, "\"ok\": true")) << json.output;
}

TEST(CliCheck, EachBrokenInvariantOfAGraphStoreIsNamed) {
  struct Damage {
    std::string file;
    std::int64_t entry, value;
    std::string message;
  };
  const std::vector<Damage> damages{{"indices.npy", 17, 600, "entry 17: neighbour id 600 outside [0, 600)"},
                                    {"indices.npy", 3, -2, "entry 3: neighbour id -2 outside [0, 600)"},
                                    {"indptr.npy", 9, 0, "entry 9: 0 is below the entry before it"},
                                    {"label.npy", 4, 3, "entry 4: label 3 outside -1 (unlabeled) and [0, 3)"},
                                    {"train_idx.npy", 0, 600, "entry 0: row id 600 outside [0, 600)"}};
  for (const auto& d : damages) {
    ScratchDir dir;
    const std::string store = make_store(dir);
    set_entry(store + "/" + d.file, d.entry, d.value);
    SCOPED_TRACE(d.file + " " + d.message);
    expect_named(store, store + "/" + d.file, d.message);
    const auto check = run_loom("check " + store);
    EXPECT_TRUE(contains(check.output, store + "/" + d.file + ": digest")) << "the digest names the file too";
  }
}

TEST(CliCheck, AFlippedFeatureByteIsCaughtByItsDigest) {
  ScratchDir dir;
  const std::string store = make_store(dir);
  const format::NpyArray feat = format::NpyArray::map(store + "/feat.npy");
  std::vector<float> values(feat.span<float>().begin(), feat.span<float>().end());
  values[123] = -values[123];
  format::write_npy(store + "/feat.npy", std::span<const float>(values), feat.shape());
  const auto check = run_loom("check " + store);
  EXPECT_EQ(check.status, 1) << check.output;
  EXPECT_TRUE(contains(check.output, store + "/feat.npy: digest")) << check.output;
  EXPECT_TRUE(contains(check.output, "1 problem (")) << check.output;
}

TEST(CliCheck, DamagedPartitionedStoresAreNamedByCheckTrainAndAnalyze) {
  ScratchDir dir;
  const std::string store = make_store(dir);
  const std::string parts = dir / "p";
  ASSERT_EQ(run_loom("partition " + store + " -k 2 --method metis -o " + parts).status, 0);
  ASSERT_EQ(run_loom("check " + parts).status, 0);

  set_entry(parts + "/topology/indices.npy", 5, 600);  // the parts' rows are the topology's
  const auto check = run_loom("check " + parts);
  EXPECT_EQ(check.status, 1) << check.output;
  EXPECT_TRUE(contains(check.output, parts + "/topology/indices.npy: entry 5: neighbour id 600 outside [0, 600)"))
      << check.output;
  // Past the digests (--no-verify), the range check at open names the entry.
  for (const std::string& command : {"train " + parts + " --epochs 1 --layers 2 --fanouts 5,5 --quiet --no-verify",
                                     "analyze cache " + parts + " --fanouts 5,5 --epochs 1 --no-verify"}) {
    const auto r = run_command(
        "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun -np 2 --oversubscribe "
        "--allow-run-as-root -q " +
        loom_binary() + " " + command + " 2>&1");
    EXPECT_NE(r.status, 0) << command << "\n" << r.output;
    EXPECT_FALSE(contains(r.output, "Segmentation fault") || contains(r.output, "signal 11")) << r.output;
    EXPECT_TRUE(contains(r.output, "topology/indices.npy: entry 5")) << command << "\n" << r.output;
  }
}

TEST(CliCheck, PartitionedInvariantsBeyondOneStoreAreNamed) {
  ScratchDir dir;
  const std::string store = make_store(dir);
  const std::string parts = dir / "p";
  ASSERT_EQ(run_loom("partition " + store + " -k 2 --method metis -o " + parts).status, 0);
  const format::NpyArray map = format::NpyArray::map(parts + "/new_to_source.npy");
  set_entry(parts + "/new_to_source.npy", 1, map.span<std::int64_t>()[0]);  // a source id twice
  const format::NpyArray halo = format::NpyArray::map(parts + "/part-0/halo_ids.npy");
  ASSERT_GT(halo.size(), 0);
  set_entry(parts + "/part-0/halo_ids.npy", 0, 0);  // part 0 owns row 0: not a halo id
  const auto check = run_loom("check " + parts);
  EXPECT_EQ(check.status, 1) << check.output;
  EXPECT_TRUE(contains(check.output, parts + "/new_to_source.npy: entry 1: source id")) << check.output;
  EXPECT_TRUE(contains(check.output, "appears twice")) << check.output;
  EXPECT_TRUE(contains(check.output, parts + "/part-0/halo_ids.npy: entry 0: halo id of part")) << check.output;
}

}  // namespace
}  // namespace loom::test
