#include "loom/graph/io/edgelist.hpp"

#include <filesystem>

#include "support/test_support.hpp"

namespace loom::graph::io {
namespace {

using Ids = std::vector<std::int64_t>;

GraphData import_text(const test::ScratchDir& dir, const std::string& text, EdgeListImportOptions o = {}) {
  o.path = dir / "edges.txt";
  test::write_file(o.path, text);
  return import_edgelist(o);
}

// The error raised by importing `text`; fails the test when none is.
Error import_error(const test::ScratchDir& dir, const std::string& text, EdgeListImportOptions o = {}) {
  try {
    import_text(dir, text, std::move(o));
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "expected an error";
  return Error("none");
}

using test::contains;

TEST(EdgeListImport, SparseIdsAreRemappedInSortedNumericOrder) {
  test::ScratchDir dir;
  const auto g = import_text(dir, "# comment\n100 7\n% other comment\n\n7 5000000000\n100\t5000000000\n");
  EXPECT_EQ(g.orig_id, (Ids{7, 100, 5000000000}));
  EXPECT_EQ(g.indptr, (Ids{0, 2, 4, 6}));
  EXPECT_EQ(g.indices, (Ids{1, 2, 0, 2, 0, 1}));
  EXPECT_FALSE(g.directed);
  EXPECT_TRUE(contains(g.id_map_note, "sorted numeric order"));
  EXPECT_EQ(g.provenance["counts"]["undirected_edges"], 3);
}

TEST(EdgeListImport, DenseIdsNeedNoMap) {
  test::ScratchDir dir;
  const auto g = import_text(dir, "2 0\n1 2\n");
  EXPECT_TRUE(g.orig_id.empty());
  EXPECT_EQ(g.indptr, (Ids{0, 1, 2, 4}));
}

TEST(EdgeListImport, DuplicatesAndSelfLoopsAreRemovedByDefaultAndCounted) {
  test::ScratchDir dir;
  const std::string text = "1 2\n2 1\n1 2\n3 3\n2 3\n";
  const auto g = import_text(dir, text);
  const auto& counts = g.provenance["counts"];
  EXPECT_EQ(counts["input_edges"], 5);
  EXPECT_EQ(counts["self_loops_removed"], 1);
  EXPECT_EQ(counts["duplicate_entries_removed"], 4);  // 1-2 listed three times: 6 entries, 2 kept
  EXPECT_EQ(counts["undirected_edges"], 2);
  EXPECT_EQ(g.indices.size(), 4u);

  EdgeListImportOptions keep;
  keep.policy.duplicates = DuplicatePolicy::kKeep;
  keep.policy.self_loops = SelfLoopPolicy::kKeep;
  const auto k = import_text(dir, text, keep);
  EXPECT_EQ(k.indices.size(), 9u);  // 3 x (1-2) both ways, 2-3 both ways, one loop
  EXPECT_EQ(k.provenance["counts"]["undirected_edges"], 5);
  EXPECT_EQ(k.provenance["edge_policy"]["duplicates"], "keep");
}

TEST(EdgeListImport, DirectedKeepsDirection) {
  test::ScratchDir dir;
  EdgeListImportOptions o;
  o.policy.directed = true;
  const auto g = import_text(dir, "0 1\n1 2\n", o);
  EXPECT_TRUE(g.directed);
  EXPECT_EQ(g.indptr, (Ids{0, 1, 2, 2}));
  EXPECT_EQ(g.indices, (Ids{1, 2}));
}

TEST(EdgeListImport, CommaDelimiterIsDetectedAndWeightsRead) {
  test::ScratchDir dir;
  EdgeListImportOptions o;
  o.weighted = true;
  o.policy.directed = true;
  const auto g = import_text(dir, "0, 1, 0.5\n1,2,1.5\n", o);
  EXPECT_EQ(g.provenance["options"]["delimiter"], ",");
  EXPECT_EQ(g.edge_weight, (std::vector<float>{0.5f, 1.5f}));
}

TEST(EdgeListImport, ExplicitDelimiterAndBadDelimiterArgument) {
  test::ScratchDir dir;
  EdgeListImportOptions o;
  o.delimiter = ";";
  EXPECT_EQ(import_text(dir, "0;1\n", o).indices.size(), 2u);
  o.delimiter = "ab";
  EXPECT_EQ(import_error(dir, "0 1\n", o).argument(), "--delimiter");
}

TEST(EdgeListImport, NonNumericIdsMakeTheWholeFileStringIds) {
  test::ScratchDir dir;
  const auto g = import_text(dir, "10 2\n2 carol\nalice 10\n");
  EXPECT_EQ(g.names, (std::vector<std::string>{"10", "2", "alice", "carol"}));
  EXPECT_TRUE(g.orig_id.empty());
  EXPECT_EQ(g.indptr.size(), 5u);
  EXPECT_EQ(g.provenance["options"]["ids_read_as"], "string");
  EXPECT_TRUE(contains(g.id_map_note, "names.txt"));

  EdgeListImportOptions o;
  o.ids = IdKind::kString;
  EXPECT_EQ(import_text(dir, "3 1\n", o).names, (std::vector<std::string>{"1", "3"}));
}

TEST(EdgeListImport, NumericIdsOptionRejectsNamesWithFileAndLine) {
  test::ScratchDir dir;
  EdgeListImportOptions o;
  o.ids = IdKind::kNumeric;
  const auto e = import_error(dir, "0 1\n1 bob\n", o);
  EXPECT_EQ(e.file(), dir / "edges.txt");
  EXPECT_EQ(e.line(), 2);
  EXPECT_TRUE(contains(e.what(), "field 2: 'bob' is not an integer id"));
}

TEST(EdgeListImport, FloatIdIsABadLineNotAStringId) {
  test::ScratchDir dir;
  const std::string text = "0 1\n1 2\n0 0.25\n";
  const auto e = import_error(dir, text);
  EXPECT_EQ(e.line(), 3);
  EXPECT_TRUE(contains(e.what(), "'0.25' is not an integer id"));

  EdgeListImportOptions o;
  o.skip_bad_lines = true;
  const auto g = import_text(dir, text, o);
  EXPECT_EQ(g.num_rows(), 3);
  EXPECT_EQ(g.provenance["counts"]["bad_lines_skipped"], 1);
  EXPECT_EQ(g.provenance["counts"]["first_bad_line"], 3);
}

TEST(EdgeListImport, NumNodesFixesTheIdSpace) {
  test::ScratchDir dir;
  EdgeListImportOptions o;
  o.num_nodes = 10;
  const auto g = import_text(dir, "0 1\n5 2\n", o);
  EXPECT_EQ(g.num_rows(), 10);
  EXPECT_TRUE(g.orig_id.empty());
  EXPECT_TRUE(contains(g.id_map_note, "--num-nodes 10"));
}

TEST(EdgeListImport, IdPastNumNodesNamesFileAndLine) {
  test::ScratchDir dir;
  EdgeListImportOptions o;
  o.num_nodes = 4;
  const auto e = import_error(dir, "0 1\n2 5\n", o);
  EXPECT_EQ(e.file(), dir / "edges.txt");
  EXPECT_EQ(e.line(), 2);
  EXPECT_TRUE(contains(e.what(), "id 5 is outside [0, 4)"));
}

TEST(EdgeListImport, MissingOrBadWeightNamesTheLine) {
  test::ScratchDir dir;
  EdgeListImportOptions o;
  o.weighted = true;
  auto e = import_error(dir, "0 1 1.0\n1 2\n", o);
  EXPECT_EQ(e.line(), 2);
  EXPECT_TRUE(contains(e.what(), "weight"));
  e = import_error(dir, "0 1 heavy\n", o);
  EXPECT_EQ(e.line(), 1);
  EXPECT_TRUE(contains(e.what(), "'heavy' is not a number"));
}

TEST(EdgeListImport, LineWithOneFieldIsAnError) {
  test::ScratchDir dir;
  const auto e = import_error(dir, "0 1\n7\n");
  EXPECT_EQ(e.line(), 2);
  EXPECT_TRUE(contains(e.what(), "expected 2 fields"));
}

TEST(EdgeListImport, EmptyOrCommentOnlyFileIsAnError) {
  test::ScratchDir dir;
  EXPECT_TRUE(contains(import_error(dir, "").what(), "no edges"));
  EXPECT_TRUE(contains(import_error(dir, "# Nodes: 0\n\n").what(), "no edges"));
}

TEST(EdgeListImport, GzipIsReadAndTruncatedGzipIsAnError) {
  test::ScratchDir dir;
  std::string text;
  for (int i = 0; i < 30000; ++i) text += std::to_string(i * 7) + " " + std::to_string(i * 7 + 3) + "\n";
  EdgeListImportOptions o;
  o.path = dir / "big.txt.gz";
  test::write_file(o.path, text, /*gzip=*/true);
  EXPECT_EQ(import_edgelist(o).num_rows(), 60000);
  std::filesystem::resize_file(o.path, std::filesystem::file_size(o.path) / 2);
  try {
    import_edgelist(o);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.file(), o.path);
    EXPECT_TRUE(contains(e.what(), "truncated"));
  }
}

TEST(EdgeListImport, MissingSourceNamesTheArgument) {
  test::ScratchDir dir;
  EdgeListImportOptions o;
  o.path = dir / "nope.txt";
  try {
    import_edgelist(o);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.argument(), "SRC");
    EXPECT_TRUE(contains(e.what(), "does not exist"));
  }
}

}  // namespace
}  // namespace loom::graph::io
