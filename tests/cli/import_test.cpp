// End-to-end `loom import ogb|edgelist|npy`: a good import writes a store `loom info` reads;
// every kind of bad input exits with status 1, one message naming the file/line or argument,
// and leaves no output directory behind.
#include <filesystem>

#include <nlohmann/json.hpp>

#include "loom/core/fs.hpp"
#include "loom/format/npy.hpp"
#include "support/test_support.hpp"

namespace fs = std::filesystem;

namespace loom {
namespace {

using test::contains;

// Runs a failing import into `out` and checks exit status 1, the message and no output left.
void expect_clean_failure(const std::string& args, const std::string& out, const std::string& message) {
  const auto r = test::run_loom(args + " -o " + out);
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_TRUE(contains(r.output, "loom: error: ")) << r.output;
  EXPECT_TRUE(contains(r.output, message)) << "expected '" << message << "' in: " << r.output;
  EXPECT_FALSE(fs::exists(out)) << out;
  for (const auto& entry : fs::directory_iterator(fs::path(out).parent_path()))
    EXPECT_FALSE(contains(entry.path().filename().string(), fs::path(out).filename().string() + ".tmp"))
        << "temporary output left behind: " << entry.path();
}

void write_gz(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  test::write_file(path, text, /*gzip=*/true);
}

void make_ogb(const std::string& dir) {
  test::write_gz_files(dir, {{"raw/edge.csv.gz", "0,1\n1,2\n2,0\n"},
                             {"raw/num-node-list.csv.gz", "3\n"},
                             {"raw/num-edge-list.csv.gz", "3\n"},
                             {"raw/node-feat.csv.gz", "1,2\n3,4\n5,6\n"},
                             {"raw/node-label.csv.gz", "0\n1\n-1\n"},
                             {"split/k/train.csv.gz", "0\n"},
                             {"split/k/valid.csv.gz", "1\n"},
                             {"split/k/test.csv.gz", "2\n"}});
}

TEST(CliImport, OgbWritesAStoreThatInfoReads) {
  test::ScratchDir s;
  make_ogb(s / "ogb");
  const auto r = test::run_loom("import ogb " + s / "ogb" + " -o " + s / "store" + " --feat-dtype float16");
  ASSERT_EQ(r.status, 0) << r.output;
  const auto meta = nlohmann::json::parse(core::read_text_file(s / "store/meta.json"));
  EXPECT_EQ(meta["num_nodes"], 3);
  EXPECT_EQ(meta["num_edges"], 6);
  EXPECT_EQ(meta["feat_dtype"], "float16");
  EXPECT_EQ(meta["splits"]["train"], 1);
  EXPECT_EQ(meta["provenance"]["importer"], "ogb");
  EXPECT_EQ(meta["provenance"]["options"]["feat_dtype"], "float16");
  const auto info = test::run_loom("info " + s / "store");
  EXPECT_EQ(info.status, 0) << info.output;
  EXPECT_TRUE(contains(info.output, "6 stored")) << info.output;
}

TEST(CliImport, EdgeListWithSparseIdsStoresOriginalIds) {
  test::ScratchDir s;
  test::write_file(s / "e.txt", "# a comment\n10 30\n30 20\n20 20\n");
  const auto r = test::run_loom("import edgelist " + s / "e.txt" + " -o " + s / "store");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(format::read_npy_as<std::int64_t>(s / "store/orig_id.npy"), (std::vector<std::int64_t>{10, 20, 30}));
  const auto meta = nlohmann::json::parse(core::read_text_file(s / "store/meta.json"));
  EXPECT_EQ(meta["id_map"], "orig_id");
  EXPECT_EQ(meta["provenance"]["counts"]["self_loops_removed"], 1);
  EXPECT_EQ(meta["provenance"]["edge_policy"]["self_loops"], "remove");
  EXPECT_EQ(test::run_loom("info " + s / "store").status, 0);

  const auto again = test::run_loom("import edgelist " + s / "e.txt" + " -o " + s / "store");
  EXPECT_EQ(again.status, 1);
  EXPECT_TRUE(contains(again.output, "--overwrite"));
  EXPECT_EQ(
      test::run_loom("import edgelist " + s / "e.txt" + " -o " + s / "store --overwrite --self-loops keep").status, 0);
}

TEST(CliImport, EdgeListWithStringIdsKeepsNames) {
  test::ScratchDir s;
  test::write_file(s / "e.csv", "bob,alice\nalice,carol\n");
  ASSERT_EQ(test::run_loom("import edgelist " + s / "e.csv" + " -o " + s / "store").status, 0);
  EXPECT_EQ(core::read_text_file(s / "store/names.txt"), "alice\nbob\ncarol\n");
}

TEST(CliImport, NpyWritesAStore) {
  test::ScratchDir s;
  fs::create_directories(s / "arrays");
  format::write_npy(s / "arrays/src.npy", std::vector<std::int64_t>{0, 1});
  format::write_npy(s / "arrays/dst.npy", std::vector<std::int64_t>{1, 2});
  const auto r = test::run_loom("import npy " + s / "arrays" + " -o " + s / "store --directed");
  ASSERT_EQ(r.status, 0) << r.output;
  const auto meta = nlohmann::json::parse(core::read_text_file(s / "store/meta.json"));
  EXPECT_EQ(meta["num_edges"], 2);
  EXPECT_EQ(meta["directed"], true);
}

// A header line above integer ids is named (it used to make a string-id graph with an extra edge);
// --bad-lines skip skips it; a file of words alone still reads as string ids.
TEST(CliImport, EdgeListHeaderLineIsNamed) {
  test::ScratchDir s;
  test::write_file(s / "e.txt", "source target\n0 1\n1 2\n");
  expect_clean_failure("import edgelist " + s / "e.txt", s / "out",
                       "e.txt:1: 'source target' looks like a header line");
  auto r = test::run_loom("import edgelist " + s / "e.txt" + " -o " + s / "skipped --bad-lines skip");
  ASSERT_EQ(r.status, 0) << r.output;
  auto meta = nlohmann::json::parse(core::read_text_file(s / "skipped/meta.json"));
  EXPECT_EQ(meta["num_nodes"], 3);
  EXPECT_EQ(meta["provenance"]["counts"]["bad_lines_skipped"], 1);
  test::write_file(s / "w.txt", "alice bob\ncarol bob\n");
  r = test::run_loom("import edgelist " + s / "w.txt" + " -o " + s / "words");
  ASSERT_EQ(r.status, 0) << r.output;
  meta = nlohmann::json::parse(core::read_text_file(s / "words/meta.json"));
  EXPECT_EQ(meta["num_nodes"], 3);
}

// Bytes that are not text are reported by their offset, never echoed to the terminal.
TEST(CliImport, BinaryEdgeListIsReportedByOffsetNotEchoed) {
  test::ScratchDir s;
  test::write_file(s / "b.txt", std::string("0 1\n\x7f\x45\x4c\x46\x02\x01\x01\x00 \x03\x00\n", 16));
  const auto r = test::run_loom("import edgelist " + s / "b.txt" + " -o " + s / "out");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_TRUE(contains(r.output, "b.txt:2: binary data (the line at byte 4 of the file is not text)")) << r.output;
  EXPECT_FALSE(contains(r.output, "\x7f")) << "raw bytes echoed";
  EXPECT_FALSE(contains(r.output, "ELF")) << "raw bytes echoed";
}

TEST(CliImport, BadInputFailsCleanly) {
  test::ScratchDir s;
  // Truncated gzip.
  std::string text;
  for (int i = 0; i < 30000; ++i) text += std::to_string(i * 13) + " " + std::to_string(i * 13 + 5) + "\n";
  test::write_file(s / "t.txt.gz", text, /*gzip=*/true);
  fs::resize_file(s / "t.txt.gz", fs::file_size(s / "t.txt.gz") / 2);
  expect_clean_failure("import edgelist " + s / "t.txt.gz", s / "out", s / "t.txt.gz" + ":");
  // A non-numeric field (numeric ids required) and an id past --num-nodes, with file and line.
  test::write_file(s / "e.txt", "0 1\n1 two\n");
  expect_clean_failure("import edgelist --numeric-ids " + s / "e.txt", s / "out", s / "e.txt" + ":2: field 2: 'two'");
  test::write_file(s / "e.txt", "0 1\n1 9\n");
  expect_clean_failure("import edgelist --num-nodes 5 " + s / "e.txt", s / "out",
                       s / "e.txt" + ":2: field 2: id 9 is outside [0, 5)");
  // An empty file.
  test::write_file(s / "empty.txt", "");
  expect_clean_failure("import edgelist " + s / "empty.txt", s / "out", "no edges");
  // A missing source.
  expect_clean_failure("import edgelist " + s / "absent.txt", s / "out", "argument SRC");
  expect_clean_failure("import ogb " + s / "absent", s / "out", "does not exist");

  // OGB: a feature row of the wrong width, a label count mismatch, a missing split file.
  make_ogb(s / "ogb");
  write_gz(s / "ogb/raw/node-feat.csv.gz", "1,2\n3\n5,6\n");
  expect_clean_failure("import ogb " + s / "ogb", s / "out",
                       "node-feat.csv.gz:2: feature row has 1 values, expected 2");
  make_ogb(s / "ogb");
  write_gz(s / "ogb/raw/node-label.csv.gz", "0\n1\n");
  expect_clean_failure("import ogb " + s / "ogb", s / "out", "has 2 label rows");
  make_ogb(s / "ogb");
  fs::remove(s / "ogb/split/k/test.csv.gz");
  expect_clean_failure("import ogb " + s / "ogb", s / "out", "split/k/test.csv.gz: missing");

  // An unwritable output directory (its parent is a regular file).
  make_ogb(s / "ogb");
  test::write_file(s / "plain", "x");
  const auto r = test::run_loom("import ogb " + s / "ogb" + " -o " + s / "plain/out");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_TRUE(contains(r.output, "argument -o")) << r.output;
  EXPECT_FALSE(fs::exists(s / "plain/out"));
}

}  // namespace
}  // namespace loom
