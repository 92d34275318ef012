#include "loom/graph/io/npy_import.hpp"

#include "loom/format/npy.hpp"
#include "support/test_support.hpp"

namespace loom::graph::io {
namespace {

using Ids = std::vector<std::int64_t>;

using test::contains;

GraphData import_dir(const test::ScratchDir& dir, std::int64_t num_nodes = -1, bool directed = false) {
  NpyImportOptions o;
  o.dir = dir.path();
  o.num_nodes = num_nodes;
  o.policy.directed = directed;
  return import_npy(o);
}

Error import_error(const test::ScratchDir& dir, std::int64_t num_nodes = -1) {
  try {
    import_dir(dir, num_nodes);
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "expected an error";
  return Error("none");
}

TEST(NpyImport, EdgePairsWithFeaturesLabelsSplitsAndOriginalIds) {
  test::ScratchDir dir;
  format::write_npy(dir / "src.npy", std::vector<std::int32_t>{0, 1, 2});
  format::write_npy(dir / "dst.npy", std::vector<std::int32_t>{1, 2, 0});
  format::write_npy(dir / "feat.npy", std::vector<double>{1, 2, 3, 4, 5, 6, 7, 8}, {4, 2});
  format::write_npy(dir / "label.npy", std::vector<std::int64_t>{1, 0, -1, 2});
  format::write_npy(dir / "train_idx.npy", std::vector<std::int64_t>{3, 0});
  format::write_npy(dir / "orig_id.npy", std::vector<std::int64_t>{40, 10, 30, 20});
  const auto g = import_dir(dir);
  EXPECT_EQ(g.num_rows(), 4);  // from feat.npy: node 3 is isolated
  EXPECT_EQ(g.indptr, (Ids{0, 2, 4, 6, 6}));
  EXPECT_EQ(g.feat_dim, 2);
  EXPECT_EQ(g.feat[7], 8.0f);
  EXPECT_EQ(g.label, (Ids{1, 0, -1, 2}));
  EXPECT_EQ(g.num_classes, 3);
  EXPECT_EQ(g.splits.at("train"), (Ids{3, 0}));
  EXPECT_EQ(g.splits.count("test"), 0u);
  EXPECT_EQ(g.orig_id, (Ids{40, 10, 30, 20}));
  EXPECT_EQ(g.provenance["importer"], "npy");
}

TEST(NpyImport, CsrInputKeptDirected) {
  test::ScratchDir dir;
  format::write_npy(dir / "indptr.npy", std::vector<std::int64_t>{0, 2, 2, 3});
  format::write_npy(dir / "indices.npy", std::vector<std::int64_t>{2, 1, 0});
  const auto g = import_dir(dir, -1, /*directed=*/true);
  EXPECT_EQ(g.indptr, (Ids{0, 2, 2, 3}));
  EXPECT_EQ(g.indices, (Ids{1, 2, 0}));
}

TEST(NpyImport, MultiLabelMatrix) {
  test::ScratchDir dir;
  format::write_npy(dir / "src.npy", std::vector<std::int64_t>{0});
  format::write_npy(dir / "dst.npy", std::vector<std::int64_t>{1});
  format::write_npy(dir / "label.npy", std::vector<std::uint8_t>{1, 0, 1, 0, 1, 1}, {2, 3});
  const auto g = import_dir(dir);
  EXPECT_EQ(g.num_classes, 3);
  EXPECT_EQ(g.multi_label, (std::vector<std::uint8_t>{1, 0, 1, 0, 1, 1}));
}

TEST(NpyImport, NodeCountFromLargestIdOrOption) {
  test::ScratchDir dir;
  format::write_npy(dir / "src.npy", std::vector<std::int64_t>{0, 4});
  format::write_npy(dir / "dst.npy", std::vector<std::int64_t>{1, 2});
  EXPECT_EQ(import_dir(dir).num_rows(), 5);
  EXPECT_EQ(import_dir(dir, 7).num_rows(), 7);
  const auto e = import_error(dir, 4);
  EXPECT_EQ(e.file(), dir / "src.npy");
  EXPECT_TRUE(contains(e.what(), "entry 1: node id 4 is outside [0, 4)"));
}

TEST(NpyImport, LabelCountMustMatchFeatureRows) {
  test::ScratchDir dir;
  format::write_npy(dir / "src.npy", std::vector<std::int64_t>{0});
  format::write_npy(dir / "dst.npy", std::vector<std::int64_t>{1});
  format::write_npy(dir / "feat.npy", std::vector<float>{1, 2, 3}, {3, 1});
  format::write_npy(dir / "label.npy", std::vector<std::int64_t>{0, 1});
  const auto e = import_error(dir);
  EXPECT_EQ(e.file(), dir / "label.npy");
  EXPECT_TRUE(contains(e.what(), "has 2 rows"));
}

TEST(NpyImport, MissingPartnerArrayAndWrongDtypesAreNamed) {
  test::ScratchDir dir;
  format::write_npy(dir / "src.npy", std::vector<std::int64_t>{0});
  EXPECT_EQ(import_error(dir).file(), dir / "dst.npy");
  format::write_npy(dir / "dst.npy", std::vector<float>{1});
  auto e = import_error(dir);
  EXPECT_EQ(e.file(), dir / "dst.npy");
  EXPECT_TRUE(contains(e.what(), "integer"));
  format::write_npy(dir / "dst.npy", std::vector<std::int64_t>{1});
  format::write_npy(dir / "feat.npy", std::vector<std::int32_t>{1, 2});
  EXPECT_EQ(import_error(dir).file(), dir / "feat.npy");
}

// PyG's name for the validation split is read as Loom's; both at once is an error.
TEST(NpyImport, PygsValIdxIsTheValidSplit) {
  test::ScratchDir dir;
  format::write_npy(dir / "src.npy", std::vector<std::int64_t>{0, 1, 2});
  format::write_npy(dir / "dst.npy", std::vector<std::int64_t>{1, 2, 3});
  format::write_npy(dir / "val_idx.npy", std::vector<std::int64_t>{2, 1});
  EXPECT_EQ(import_dir(dir).splits.at("valid"), (Ids{2, 1}));
  format::write_npy(dir / "valid_idx.npy", std::vector<std::int64_t>{3});
  const auto e = import_error(dir);
  EXPECT_EQ(e.argument(), "SRC");
  EXPECT_TRUE(contains(e.what(), "both valid_idx.npy and val_idx.npy")) << e.what();
}

TEST(NpyImport, EmptyDirectoryNamesTheArgument) {
  test::ScratchDir dir;
  const auto e = import_error(dir);
  EXPECT_EQ(e.argument(), "SRC");
}

}  // namespace
}  // namespace loom::graph::io
