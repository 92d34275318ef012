// Never silently wrong, round two (issue 57): each case below crashed, ran silently on bad data,
// overwrote or lost something, or named nothing before; now each is a clear error naming the file,
// field or option (status 1, or 2 for a usage error), with nothing half-written and the input whole.
#include <unistd.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "loom/format/digest.hpp"
#include "loom/core/fs.hpp"
#include "loom/format/npy.hpp"
#include "support/test_support.hpp"

namespace fs = std::filesystem;

namespace loom::test {
namespace {

class NeverSilent : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto r = run_loom("generate sbm -o " + dir / "g" +
                            " --nodes 300 --classes 3 --avg-degree 6 --feat-dim 8 --seed 1 --threads 1");
    ASSERT_EQ(r.status, 0) << r.output;
  }

  // `args` fails with `status`, its output naming every one of `parts`.
  static void expect_error(const std::string& args, int status, std::initializer_list<std::string> parts) {
    const auto r = run_loom(args);
    EXPECT_EQ(r.status, status) << args << "\n" << r.output;
    for (const auto& part : parts) EXPECT_TRUE(contains(r.output, part)) << "'" << part << "' not in: " << r.output;
  }

  // Edits one field of STORE/meta.json as a text editor would (no new seal).
  void edit_meta(const std::string& store, const std::string& key, const nlohmann::json& value) {
    auto meta = nlohmann::json::parse(core::read_text_file(store + "/meta.json"));
    meta[key] = value;
    core::write_text_file(store + "/meta.json", meta.dump(2));
  }

  // The same, sealed again (as a writer would have sealed it): only the field's meaning can catch it.
  void edit_meta_sealed(const std::string& store, const std::string& key, const nlohmann::json& value) {
    auto meta = nlohmann::json::parse(core::read_text_file(store + "/meta.json"));
    meta[key] = value;
    format::seal_meta(meta);
    core::write_text_file(store + "/meta.json", meta.dump(2));
  }

  // Names in `folder` that hold ".tmp-" (unfinished outputs).
  static std::vector<std::string> temporaries(const std::string& folder) {
    std::vector<std::string> found;
    for (const auto& entry : fs::directory_iterator(folder))
      if (contains(entry.path().filename().string(), ".tmp-")) found.push_back(entry.path().string());
    return found;
  }

  ScratchDir dir;
};

// --- crashes ------------------------------------------------------------------------------------

TEST_F(NeverSilent, EvalBatchSizeZeroOrNegativeIsRefusedByName) {
  for (const std::string value : {"0", "-1"})
    expect_error("train " + dir / "g" + " --epochs 1 --hidden 8 --eval-batch-size " + value, 1,
                 {"--eval-batch-size", "must be positive"});
}

TEST_F(NeverSilent, APartThatDisagreesIsNamedByCheckAndTraining) {
  ASSERT_EQ(run_loom("partition " + dir / "g" + " -k 2 --method random -o " + dir / "p").status, 0);
  edit_meta_sealed(dir / "p/part-1", "num_classes", 7);
  const auto check = run_loom("check " + dir / "p");
  EXPECT_EQ(check.status, 1) << check.output;
  EXPECT_TRUE(contains(check.output, "part-1/meta.json")) << check.output;
  EXPECT_TRUE(contains(check.output, "num_classes is 7")) << check.output;
  expect_error("analyze cache " + dir / "p" + " --fanouts 3,2 --alpha 0.1 --epochs 1", 1,
               {"part-1/meta.json", "num_classes is 7", "does not belong to this partitioned store"});
}

// --- silent -------------------------------------------------------------------------------------

TEST_F(NeverSilent, AnEditedMetaJsonIsRefusedByEveryCommand) {
  edit_meta(dir / "g", "num_classes", 9);
  const std::string meta = dir / "g/meta.json", changed = "changed since the store was written";
  expect_error("info " + dir / "g", 1, {meta, changed});
  expect_error("train " + dir / "g" + " --epochs 1 --hidden 8", 1, {meta, changed});
  expect_error("partition " + dir / "g" + " -k 2 --method random -o " + dir / "p", 1, {meta, changed});
  expect_error("embed deepwalk " + dir / "g" + " -o " + dir / "e.txt --walks 1 --length 5 --dim 4 --epochs 1", 1,
               {meta, changed});
  expect_error("analyze cache " + dir / "g" + " --fanouts 3,2 --alpha 0.1 --epochs 1", 1, {meta, changed});
  const auto check = run_loom("check " + dir / "g");
  EXPECT_EQ(check.status, 1) << check.output;
  EXPECT_TRUE(contains(check.output, "meta.json: digest")) << check.output;
  EXPECT_FALSE(fs::exists(dir / "p"));
  EXPECT_EQ(run_loom("--no-verify info " + dir / "g").status, 0);  // for users who know
}

TEST_F(NeverSilent, Float16ThatWouldOverflowIsRefusedAtImport) {
  fs::create_directories(dir / "npy");
  format::write_npy(dir / "npy/src.npy", std::vector<std::int64_t>{0, 1});
  format::write_npy(dir / "npy/dst.npy", std::vector<std::int64_t>{1, 2});
  format::write_npy(dir / "npy/feat.npy", std::vector<float>{1, 2, 3, 70000, 5, 6}, {3, 2});
  expect_error("import npy " + dir / "npy" + " -o " + dir / "s --feat-dtype float16", 1,
               {"feat.npy", "row 1, column 1", "70000", "--feat-dtype"});
  EXPECT_FALSE(fs::exists(dir / "s"));
  EXPECT_EQ(run_loom("import npy " + dir / "npy" + " -o " + dir / "s --feat-dtype bfloat16").status, 0);
}

TEST_F(NeverSilent, OverlappingOrRepeatedSplitIdsAreRefusedAtImportAndTraining) {
  const std::vector<std::pair<std::string, std::string>> raw = {{"raw/edge.csv.gz", "0,1\n1,2\n2,3\n3,0\n"},
                                                                {"raw/num-node-list.csv.gz", "4\n"},
                                                                {"raw/node-feat.csv.gz", "1\n2\n3\n4\n"},
                                                                {"raw/node-label.csv.gz", "0\n1\n0\n1\n"}};
  auto overlap = raw;
  overlap.insert(
      overlap.end(),
      {{"split/k/train.csv.gz", "0\n1\n"}, {"split/k/valid.csv.gz", "2\n"}, {"split/k/test.csv.gz", "3\n1\n"}});
  write_gz_files(dir / "overlap", overlap);
  expect_error("import ogb " + dir / "overlap" + " -o " + dir / "s", 1, {"node 1 is in both the", "test leakage"});
  auto repeated = raw;
  repeated.insert(
      repeated.end(),
      {{"split/k/train.csv.gz", "0\n0\n"}, {"split/k/valid.csv.gz", "2\n"}, {"split/k/test.csv.gz", "3\n"}});
  write_gz_files(dir / "repeated", repeated);
  expect_error("import ogb " + dir / "repeated" + " -o " + dir / "s", 1, {"node 0 appears twice in the train split"});
  EXPECT_FALSE(fs::exists(dir / "s"));
  // A store written before: training refuses it too.
  auto test_ids = format::read_npy_as<std::int64_t>(dir / "g/test_idx.npy");
  test_ids[0] = format::read_npy_as<std::int64_t>(dir / "g/train_idx.npy")[0];
  format::write_npy(dir / "g/test_idx.npy", test_ids);
  expect_error("--no-verify train " + dir / "g" + " --epochs 1 --hidden 8", 1,
               {"train_idx.npy", "in both the test and the train split", "test leakage"});
}

TEST_F(NeverSilent, AGarbageLineAmongIntegerIdsIsAnErrorNamingIt) {
  std::string text;
  for (int v = 0; v < 50; ++v) text += std::to_string(v) + " " + std::to_string(v + 1) + "\n";
  text += "this is garbage\n";
  write_file(dir / "edges.txt", text + "51 52\n");
  expect_error("import edgelist " + dir / "edges.txt" + " -o " + dir / "s", 1,
               {"edges.txt:51", "'this' is not an integer id", "--string-ids"});
  EXPECT_EQ(run_loom("import edgelist " + dir / "edges.txt" + " -o " + dir / "s --bad-lines skip").status, 0);
  write_file(dir / "names.txt", "10 2\n2 carol\nalice 10\n");  // a file of names: string ids
  EXPECT_EQ(run_loom("import edgelist " + dir / "names.txt" + " -o " + dir / "n").status, 0);
}

TEST_F(NeverSilent, NegativeOrOctalLookingIntegersAreUsageErrors) {
  write_file(dir / "edges.txt", "0 1\n1 2\n");
  expect_error("import edgelist " + dir / "edges.txt" + " -o " + dir / "s --num-nodes -5", 2, {"--num-nodes"});
  expect_error("train " + dir / "g" + " --seed -1", 2, {"--seed", "negative"});
  expect_error("train " + dir / "g" + " --epochs 010", 2, {"--epochs", "leading zero"});
  expect_error("train " + dir / "g" + " --seed 99999999999999999999999", 2, {"--seed"});
}

TEST_F(NeverSilent, BothAPlainAndAGzipEdgeFileAreNamed) {
  write_gz_files(dir / "ogb", {{"raw/edge.csv.gz", "0,1\n"}, {"raw/num-node-list.csv.gz", "2\n"}});
  write_file(dir / "ogb/raw/edge.csv", "0,1\n1,0\n");
  expect_error("import ogb " + dir / "ogb" + " -o " + dir / "s", 1, {"edge.csv", "edge.csv.gz", "remove one"});
}

TEST_F(NeverSilent, ASecondRunDoesNotMixItsCheckpointsWithAnEarlierOnes) {
  const std::string train = "train " + dir / "g" + " --hidden 8 --threads 1 --quiet --checkpoint-every 1 ";
  ASSERT_EQ(run_loom(train + "--epochs 2 --checkpoint-dir " + dir / "ck").status, 0);
  expect_error(train + "--epochs 1 --checkpoint-dir " + dir / "ck", 1,
               {"--checkpoint-dir", "holds the checkpoints of an earlier run", "--resume", "--overwrite"});
  EXPECT_TRUE(fs::exists(dir / "ck/epoch-2"));
  ASSERT_EQ(run_loom(train + "--epochs 1 --checkpoint-dir " + dir / "ck --overwrite").status, 0);
  EXPECT_TRUE(fs::exists(dir / "ck/epoch-1"));
  EXPECT_FALSE(fs::exists(dir / "ck/epoch-2")) << "the earlier run's epoch-2 was left";
}

TEST_F(NeverSilent, ResumeFollowsLatestNotAStaleNewerCheckpoint) {
  const std::string train = "train " + dir / "g" + " --hidden 8 --threads 1 --quiet --checkpoint-every 1 ";
  ASSERT_EQ(run_loom(train + "--epochs 3 --checkpoint-dir " + dir / "ck").status, 0);
  core::write_text_file(dir / "ck/latest", "epoch-1\n");  // as a run that wrote epoch-1 last left it
  const auto r = run_loom(train + "--epochs 3 --checkpoint-dir " + dir / "ck --resume");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "after epoch 1")) << r.output;
}

TEST_F(NeverSilent, ResumingWithAnotherRunsMetricsLogIsRefused) {
  const std::string train = "train " + dir / "g" + " --hidden 8 --threads 1 --quiet --checkpoint-every 1 ";
  ASSERT_EQ(run_loom(train + "--epochs 1 --checkpoint-dir " + dir / "ck --metrics " + dir / "m.jsonl").status, 0);
  write_file(dir / "other.jsonl", "{\"epoch\": 1, \"run\": \"someone else's\"}\n");
  expect_error(train + "--epochs 2 --checkpoint-dir " + dir / "ck --resume --metrics " + dir / "other.jsonl", 1,
               {"--metrics", "is not the log of the run being resumed"});
  EXPECT_EQ(read_bytes(dir / "other.jsonl"), "{\"epoch\": 1, \"run\": \"someone else's\"}\n");
  // Its own log goes on from what the checkpoint recorded: up to epoch 1's record, then this run's.
  const std::string own = read_bytes(dir / "m.jsonl");
  const std::string until_checkpoint = own.substr(0, own.find('\n', own.find("\"epoch\":1")) + 1);
  const auto r = run_loom(train + "--epochs 2 --checkpoint-dir " + dir / "ck --resume --metrics " + dir / "m.jsonl");
  ASSERT_EQ(r.status, 0) << r.output;
  const std::string resumed = read_bytes(dir / "m.jsonl");
  EXPECT_EQ(resumed.substr(0, until_checkpoint.size()), until_checkpoint);
  EXPECT_TRUE(contains(resumed.substr(until_checkpoint.size()), "\"epoch\":2"));
  EXPECT_FALSE(contains(resumed.substr(until_checkpoint.size()), "\"epoch\":1,"));
  EXPECT_TRUE(temporaries(dir.path()).empty());
}

TEST_F(NeverSilent, DecisionLogNeedsOverwrite) {
  write_file(dir / "d.jsonl", "old\n");
  expect_error("train " + dir / "g" + " --epochs 1 --hidden 8 --controller rules --prefetch 0.2 --decision-log " +
                   dir / "d.jsonl",
               1, {"--decision-log", "already exists"});
  EXPECT_EQ(read_bytes(dir / "d.jsonl"), "old\n");
}

// --- lost, hung, unbounded ----------------------------------------------------------------------

TEST_F(NeverSilent, AnImportOverItsOwnSourceIsRefusedAndTheSourceStays) {
  write_gz_files(dir / "ogb", {{"raw/edge.csv.gz", "0,1\n1,2\n"}, {"raw/num-node-list.csv.gz", "3\n"}});
  expect_error("import ogb " + dir / "ogb" + " -o " + dir / "ogb --overwrite", 1, {"-o", "is the input"});
  expect_error("import ogb " + dir / "ogb/raw" + " -o " + dir / "ogb --overwrite", 1, {"-o", "holds the input"});
  EXPECT_TRUE(fs::exists(dir / "ogb/raw/edge.csv.gz"));
  EXPECT_EQ(run_loom("import ogb " + dir / "ogb" + " -o " + dir / "ogb/store").status, 0);  // inside is fine
  expect_error("train " + dir / "g" + " --epochs 1 --hidden 8 -o " + dir / "g --overwrite", 1, {"--output"});
  EXPECT_TRUE(fs::exists(dir / "g/meta.json"));
}

TEST_F(NeverSilent, AFileWithoutLineBreaksIsRefusedNotReadForever) {
  const std::string zeros = dir / "zeros.txt";
  ASSERT_EQ(run_command("head -c 80000000 /dev/zero > " + zeros).status, 0);
  expect_error("import edgelist " + zeros + " -o " + dir / "s", 1, {"zeros.txt:1", "no line break"});
}

TEST_F(NeverSilent, LeftoversOfAKilledRunAreRemovedByTheNextOne) {
  // A process id that no process has: beyond the kernel's pid_max.
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  const std::string leftover = dir / ("s.tmp-" + std::string(host) + "-999999999-0");
  fs::create_directories(leftover);
  write_file(leftover + "/indices.npy", "half written");
  const std::string other_host = dir / "s.tmp-elsewhere-999999999-0";
  fs::create_directories(other_host);
  write_file(dir / "edges.txt", "0 1\n1 2\n");
  ASSERT_EQ(run_loom("import edgelist " + dir / "edges.txt" + " -o " + dir / "s").status, 0);
  EXPECT_FALSE(fs::exists(leftover));
  EXPECT_TRUE(fs::exists(other_host)) << "another host's run may still be writing it";
}

TEST_F(NeverSilent, AStrayHugeLabelImportsFastAndTrainingNamesTheClassCount) {
  write_gz_files(dir / "ogb", {{"raw/edge.csv.gz", "0,1\n1,2\n2,3\n"},
                               {"raw/num-node-list.csv.gz", "4\n"},
                               {"raw/node-feat.csv.gz", "1\n2\n3\n4\n"},
                               {"raw/node-label.csv.gz", "0\n1\n99999999999\n1\n"}});
  const auto r = run_loom("import ogb " + dir / "ogb" + " -o " + dir / "s --random-split 0.5,0.25");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "label 99999999999")) << r.output;
  expect_error("train " + dir / "s" + " --epochs 1 --hidden 8", 1, {"meta.json", "num_classes is 100000000000"});
}

TEST_F(NeverSilent, SizesThatCannotFitAreRefusedByNameBeforeAllocating) {
  write_file(dir / "edges.txt", "0 1\n1 2\n");
  expect_error("import edgelist " + dir / "edges.txt" + " -o " + dir / "s --num-nodes 3000000000000", 1,
               {"--num-nodes", "more than the"});
  expect_error("train " + dir / "g" + " --epochs 1 --hidden 100000000", 1, {"--hidden", "parameters"});
  expect_error("embed deepwalk " + dir / "g" + " -o " + dir / "e.txt --walks 100000000000 --length 80", 1,
               {"--walks", "more than the"});
  expect_error("import edgelist " + dir / "edges.txt" + " -o " + dir / "s --build-memory 1", 2,
               {"--build-memory", "16M"});
  expect_error("walk " + dir / "g" + " --walks 1099511627776", 1, {"--walks", "more than the"});
  expect_error("walk " + dir / "g" + " --walks 1 --length 1099511627776", 1, {"--length", "more than the"});
  expect_error("generate sbm -o " + dir / "x --nodes 1099511627776 --classes 2 --avg-degree 4 --feat-dim 4", 1,
               {"--nodes", "more than the"});
  expect_error("generate sbm -o " + dir / "x --nodes 200 --classes 2 --avg-degree 4 --feat-dim 1099511627776", 1,
               {"--feat-dim", "more than the"});
  expect_error("generate rmat -o " + dir / "x --scale 8 --edge-factor 1099511627776", 1,
               {"--edge-factor", "free on the file system"});
  EXPECT_TRUE(temporaries(dir.path()).empty());
}

// Found by bench/bench_reliability.sh's sweep of every numeric option: a learning rate of 2^40
// crashed SGNS (a NaN indexed its sigmoid table); node2vec with p = 2^40 ran without end (a leaf
// returned by rejection sampling with acceptance 2^-40).
TEST_F(NeverSilent, ExtremeButValidRatesNeitherCrashNorHang) {
  expect_error("embed deepwalk " + dir / "g" + " -o " + dir / "e.txt --walks 1 --length 5 --dim 8 --epochs 1 " +
                   "--alpha 1099511627776",
               1, {"--alpha", "training diverged"});
  EXPECT_FALSE(fs::exists(dir / "e.txt"));
  EXPECT_EQ(run_loom("walk " + dir / "g" + " --walks 2 --length 20 --p 1099511627776 --q 1099511627776").status, 0);
}

}  // namespace
}  // namespace loom::test
