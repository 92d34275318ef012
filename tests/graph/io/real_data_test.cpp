// Imports every shared real dataset and checks the exact published counts, then writes the
// store and reads it back (what `loom info` does). Skips when the shared data is absent.
#include <algorithm>

#include "loom/graph/info.hpp"
#include "loom/graph/io/edgelist.hpp"
#include "loom/graph/io/ogb.hpp"
#include "support/test_support.hpp"

namespace loom::graph::io {
namespace {

struct Expected {
  std::int64_t nodes, undirected_edges, feat_dim, classes;
  bool multi_label;
  std::int64_t train, valid, test;  // 0 = no split
};

GraphStore write_and_open(const GraphData& g, const test::ScratchDir& scratch) {
  write_graph_store(g, scratch / "store", {});
  return GraphStore::open(scratch / "store");
}

void check_ogb(const std::string& dir, const Expected& x) {
  OgbImportOptions o;
  o.dir = dir;
  const auto g = import_ogb(o);
  EXPECT_EQ(g.num_rows(), x.nodes);
  EXPECT_EQ(g.provenance["counts"]["undirected_edges"], x.undirected_edges);
  EXPECT_EQ(static_cast<std::int64_t>(g.indices.size()), 2 * x.undirected_edges);
  EXPECT_EQ(g.provenance["counts"]["edge_rows"], x.undirected_edges);  // no duplicates or loops in the files
  EXPECT_EQ(g.provenance["counts"]["self_loops_removed"], 0);
  EXPECT_EQ(g.provenance["counts"]["duplicate_entries_removed"], 0);
  EXPECT_EQ(g.feat_dim, x.feat_dim);
  EXPECT_EQ(g.num_classes, x.classes);
  EXPECT_EQ(!g.multi_label.empty(), x.multi_label);
  if (x.train > 0) {
    EXPECT_EQ(g.splits.at("train").size(), static_cast<std::size_t>(x.train));
    EXPECT_EQ(g.splits.at("valid").size(), static_cast<std::size_t>(x.valid));
    EXPECT_EQ(g.splits.at("test").size(), static_cast<std::size_t>(x.test));
  } else {
    EXPECT_TRUE(g.splits.empty());
  }
  test::ScratchDir scratch;
  const auto store = write_and_open(g, scratch);
  const auto summary = store_summary(store);
  EXPECT_EQ(store.meta().num_nodes, x.nodes);
  EXPECT_EQ(store.meta().num_edges, 2 * x.undirected_edges);
  EXPECT_FALSE(format_store_summary(summary).empty());
}

TEST(RealData, Cora) {
  LOOM_REQUIRE_DATA(dir, "graphs/cora");
  check_ogb(dir, {2708, 5278, 1433, 7, false, 140, 500, 1000});
}

TEST(RealData, Facebook) {
  LOOM_REQUIRE_DATA(dir, "graphs/facebook");
  check_ogb(dir, {22470, 170823, 128, 4, false, 13482, 4494, 4494});
}

TEST(RealData, BlogCatalog) {
  LOOM_REQUIRE_DATA(dir, "graphs/blogcatalog");
  check_ogb(dir, {10312, 333983, 0, 39, true, 0, 0, 0});
}

TEST(RealData, Ppi) {
  LOOM_REQUIRE_DATA(dir, "graphs/ppi");
  check_ogb(dir, {3890, 37845, 0, 50, true, 0, 0, 0});
}

// The shared SNAP files list each undirected edge once ("Edges:" in the header counts them,
// self-loops included), then one "<node id> <float>" line per node, which is not an edge: by
// default the import stops there naming the line; with skip_bad_lines those lines are skipped.
struct SnapExpected {
  std::string file;
  std::int64_t header_nodes, header_edges, self_loops;
  bool dense_ids;
};

void check_snap(const std::string& path, const SnapExpected& x) {
  EdgeListImportOptions o;
  o.path = path;
  try {
    import_edgelist(o);
    ADD_FAILURE() << "expected the node-value lines to be rejected";
  } catch (const Error& e) {
    EXPECT_EQ(e.line(), x.header_edges + 3);  // 2 header comments, then the edges
    EXPECT_NE(std::string(e.what()).find("is not an integer id"), std::string::npos);
  }
  o.skip_bad_lines = true;
  const auto g = import_edgelist(o);
  const auto& counts = g.provenance["counts"];
  EXPECT_EQ(g.num_rows(), x.header_nodes);
  EXPECT_EQ(counts["bad_lines_skipped"], x.header_nodes);
  EXPECT_EQ(counts["input_edges"], x.header_edges);
  EXPECT_EQ(counts["self_loops_removed"], x.self_loops);
  EXPECT_EQ(counts["duplicate_entries_removed"], 0);
  EXPECT_EQ(counts["undirected_edges"], x.header_edges - x.self_loops);
  EXPECT_EQ(g.orig_id.empty(), x.dense_ids);
  if (!x.dense_ids) {
    EXPECT_TRUE(std::is_sorted(g.orig_id.begin(), g.orig_id.end()));
  }

  o.policy.self_loops = SelfLoopPolicy::kKeep;  // then the undirected count is the header's
  EXPECT_EQ(import_edgelist(o).provenance["counts"]["undirected_edges"], x.header_edges);

  test::ScratchDir scratch;
  const auto store = write_and_open(g, scratch);
  EXPECT_EQ(store.original_ids().size(), static_cast<std::size_t>(x.header_nodes));
  EXPECT_FALSE(format_store_summary(store_summary(store)).empty());
}

TEST(RealData, SnapFacebookCombined) {
  LOOM_REQUIRE_DATA(path, "edgelists/facebook_combined.txt.gz");
  check_snap(path, {"facebook_combined", 4039, 88234, 0, true});
}

TEST(RealData, SnapCaHepTh) {
  LOOM_REQUIRE_DATA(path, "edgelists/ca-hepth.txt.gz");
  check_snap(path, {"ca-hepth", 9877, 25998, 25, false});
}

TEST(RealData, SnapCaGrQc) {
  LOOM_REQUIRE_DATA(path, "edgelists/ca-grqc.txt.gz");
  check_snap(path, {"ca-grqc", 5242, 14496, 12, false});
}

}  // namespace
}  // namespace loom::graph::io
