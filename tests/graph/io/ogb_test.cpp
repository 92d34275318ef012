#include "loom/graph/io/ogb.hpp"

#include <filesystem>

#include "support/test_support.hpp"

namespace fs = std::filesystem;

namespace loom::graph::io {
namespace {

using Ids = std::vector<std::int64_t>;

using test::contains;

// A 4-node OGB directory: a triangle 0-1-2 plus 2-3, 2 features, labels with one unlabeled
// node, and one split kind "s".
struct MiniOgb {
  test::ScratchDir scratch;
  std::string dir = scratch / "mini";

  MiniOgb() {
    fs::create_directories(dir + "/raw");
    write("raw/edge.csv.gz", "0,1\n1,2\n2,0\n2,3\n");
    write("raw/num-node-list.csv.gz", "4\n");
    write("raw/num-edge-list.csv.gz", "4\n");
    write("raw/node-feat.csv.gz", "0.5,1\n2,3\n4,5\n6,-7.25\n");
    write("raw/node-label.csv.gz", "0\n2\n-1\n1\n");
    add_split("s");
  }
  void write(const std::string& rel, const std::string& text) const {
    fs::create_directories(fs::path(dir + "/" + rel).parent_path());
    test::write_file(dir + "/" + rel, text, /*gzip=*/true);
  }
  void add_split(const std::string& kind) const {
    write("split/" + kind + "/train.csv.gz", "0\n1\n");
    write("split/" + kind + "/valid.csv.gz", "2\n");
    write("split/" + kind + "/test.csv.gz", "3\n");
  }
  GraphData import(const std::string& split = "") const {
    OgbImportOptions o;
    o.dir = dir;
    o.split = split;
    return import_ogb(o);
  }
  Error error(const std::string& split = "") const {
    try {
      import(split);
    } catch (const Error& e) {
      return e;
    }
    ADD_FAILURE() << "expected an error";
    return Error("none");
  }
};

TEST(OgbImport, ReadsEdgesFeaturesLabelsAndSplit) {
  MiniOgb ogb;
  const auto g = ogb.import();
  EXPECT_EQ(g.indptr, (Ids{0, 2, 4, 7, 8}));
  EXPECT_EQ(g.indices, (Ids{1, 2, 0, 2, 0, 1, 3, 2}));
  EXPECT_EQ(g.feat_dim, 2);
  EXPECT_EQ(g.feat, (std::vector<float>{0.5f, 1, 2, 3, 4, 5, 6, -7.25f}));
  EXPECT_EQ(g.label, (Ids{0, 2, -1, 1}));
  EXPECT_EQ(g.num_classes, 3);
  EXPECT_EQ(g.splits.at("train"), (Ids{0, 1}));
  EXPECT_EQ(g.splits.at("valid"), Ids{}) << "node 2 is unlabelled: a split holds labelled nodes only";
  EXPECT_EQ(g.splits.at("test"), (Ids{3}));
  EXPECT_EQ(g.provenance["importer"], "ogb");
  EXPECT_EQ(g.provenance["options"]["split"], "s");
  EXPECT_EQ(g.provenance["counts"]["unlabeled_nodes"], 1);
  EXPECT_EQ(g.provenance["counts"]["undirected_edges"], 4);
}

TEST(OgbImport, MultiLabelColumnsAndNoSplitFolder) {
  MiniOgb ogb;
  fs::remove_all(ogb.dir + "/split");
  fs::remove(ogb.dir + "/raw/node-feat.csv.gz");
  ogb.write("raw/node-label.csv.gz", "1,0,1\n0,0,0\n0,1,0\n1,1,1\n");
  const auto g = ogb.import();
  EXPECT_TRUE(g.label.empty());
  EXPECT_EQ(g.num_classes, 3);
  EXPECT_EQ(g.multi_label, (std::vector<std::uint8_t>{1, 0, 1, 0, 0, 0, 0, 1, 0, 1, 1, 1}));
  EXPECT_TRUE(g.splits.empty());
  EXPECT_EQ(g.feat_dim, 0);
}

TEST(OgbImport, NanAndFloatLabels) {
  MiniOgb ogb;
  ogb.write("raw/node-label.csv.gz", "nan\n1.0\n\n0\n");
  EXPECT_EQ(ogb.import().label, (Ids{-1, 1, -1, 0}));
  ogb.write("raw/node-label.csv.gz", "0\n1.5\n1\n0\n");
  const auto e = ogb.error();
  EXPECT_EQ(e.line(), 2);
  EXPECT_TRUE(contains(e.what(), "not a class id"));
}

TEST(OgbImport, SeveralSplitKindsNeedTheSplitOption) {
  MiniOgb ogb;
  ogb.add_split("other");
  const auto e = ogb.error();
  EXPECT_EQ(e.argument(), "--split");
  EXPECT_TRUE(contains(e.what(), "other, s"));
  EXPECT_EQ(ogb.import("other").provenance["options"]["split"], "other");
  EXPECT_EQ(ogb.error("missing").argument(), "--split");
}

TEST(OgbImport, MissingSplitFileIsNamed) {
  MiniOgb ogb;
  fs::remove(ogb.dir + "/split/s/test.csv.gz");
  const auto e = ogb.error();
  EXPECT_EQ(e.file(), ogb.dir + "/split/s/test.csv.gz");
  EXPECT_TRUE(contains(e.what(), "missing"));
}

TEST(OgbImport, FeatureRowOfWrongWidthNamesTheLine) {
  MiniOgb ogb;
  ogb.write("raw/node-feat.csv.gz", "1,2\n3,4\n5\n7,8\n");
  const auto e = ogb.error();
  EXPECT_EQ(e.file(), ogb.dir + "/raw/node-feat.csv.gz");
  EXPECT_EQ(e.line(), 3);
  EXPECT_TRUE(contains(e.what(), "has 1 values, expected 2"));
}

TEST(OgbImport, LabelCountMustMatchTheNodeCount) {
  MiniOgb ogb;
  ogb.write("raw/node-label.csv.gz", "0\n1\n2\n");
  const auto e = ogb.error();
  EXPECT_EQ(e.file(), ogb.dir + "/raw/node-label.csv.gz");
  EXPECT_TRUE(contains(e.what(), "has 3 label rows"));
  EXPECT_TRUE(contains(e.what(), "says 4"));
}

TEST(OgbImport, EdgeIdPastTheNodeCountNamesTheLine) {
  MiniOgb ogb;
  ogb.write("raw/edge.csv.gz", "0,1\n1,2\n2,4\n2,3\n");
  const auto e = ogb.error();
  EXPECT_EQ(e.file(), ogb.dir + "/raw/edge.csv.gz");
  EXPECT_EQ(e.line(), 3);
  EXPECT_TRUE(contains(e.what(), "node id 4 is outside [0, 4)"));
}

TEST(OgbImport, EdgeCountMustMatchNumEdgeList) {
  MiniOgb ogb;
  ogb.write("raw/num-edge-list.csv.gz", "5\n");
  const auto e = ogb.error();
  EXPECT_EQ(e.file(), ogb.dir + "/raw/edge.csv.gz");
  EXPECT_TRUE(contains(e.what(), "has 4 edge rows"));
}

TEST(OgbImport, NonNumericFieldNamesLineAndField) {
  MiniOgb ogb;
  ogb.write("raw/edge.csv.gz", "0,1\n1,x\n");
  const auto e = ogb.error();
  EXPECT_EQ(e.line(), 2);
  EXPECT_TRUE(contains(e.what(), "field 2: 'x' is not an integer"));
}

TEST(OgbImport, TruncatedGzipAndEmptyFileAreErrors) {
  MiniOgb ogb;
  std::string text;
  for (int i = 0; i < 40000; ++i) text += std::to_string(i % 4) + "," + std::to_string((i * 7) % 4) + "\n";
  ogb.write("raw/edge.csv.gz", text);
  const auto path = ogb.dir + "/raw/edge.csv.gz";
  fs::resize_file(path, fs::file_size(path) / 2);
  auto e = ogb.error();
  EXPECT_EQ(e.file(), path);
  EXPECT_TRUE(contains(e.what(), "truncated"));
  ogb.write("raw/edge.csv.gz", "");
  e = ogb.error();
  EXPECT_EQ(e.file(), path);
  EXPECT_TRUE(contains(e.what(), "empty"));
}

TEST(OgbImport, MissingSourceOrRawFolderNamesTheArgument) {
  test::ScratchDir scratch;
  OgbImportOptions o;
  o.dir = scratch / "absent";
  EXPECT_THROW(import_ogb(o), Error);
  o.dir = scratch.path();
  try {
    import_ogb(o);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.argument(), "SRC");
    EXPECT_TRUE(contains(e.what(), "no raw/ folder"));
  }
}

}  // namespace
}  // namespace loom::graph::io
