// `loom check` names every invariant the commands rely on when it is broken (issue 48): a row not
// ascending, a duplicate neighbour, an undirected store that is not symmetric, an id twice in a
// split or in two splits, a feature value or edge weight that is not finite; each as the file,
// the entry and the value, with exit status 1. `loom import` warns when a label leaves most
// classes empty (one label of 999 makes 1000 classes).
#include <limits>
#include <map>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "loom/format/digest.hpp"
#include "loom/core/fs.hpp"
#include "loom/format/npy.hpp"
#include "loom/graph/store.hpp"
#include "support/test_support.hpp"

namespace loom::test {
namespace {

// A 4-node undirected cycle 0-1-2-3-0 with features, labels and disjoint splits: sound as written.
graph::GraphData cycle() {
  graph::GraphData d;
  d.indptr = {0, 2, 4, 6, 8};
  d.indices = {1, 3, 0, 2, 1, 3, 0, 2};
  d.feat_dim = 2;
  d.feat = {1, 2, 3, 4, 5, 6, 7, 8};
  d.num_classes = 2;
  d.label = {0, 1, 0, 1};
  d.splits = {{"train", {0, 1}}, {"valid", {2}}, {"test", {3}}};
  return d;
}

// Writes `d` as a store and runs `loom check` on it.
CommandResult check(const ScratchDir& dir, const graph::GraphData& d) {
  graph::StoreWriteOptions o;
  o.overwrite = true;
  graph::write_graph_store(d, dir / "g", o);
  return run_loom("check " + dir / "g");
}

// Writes `d` as a store, then gives it `splits` as a writer of before splits were checked would
// have (digests and seal recorded again), and runs `loom check` on it.
CommandResult check_with_splits(const ScratchDir& dir, const graph::GraphData& d,
                                const std::map<std::string, std::vector<std::int64_t>>& splits) {
  graph::StoreWriteOptions o;
  o.overwrite = true;
  graph::write_graph_store(d, dir / "g", o);
  auto meta = nlohmann::json::parse(core::read_text_file(dir / "g/meta.json"));
  for (const auto& [name, ids] : splits) {
    format::write_npy(dir / ("g/" + name + "_idx.npy"), ids);
    meta["splits"][name] = ids.size();
  }
  core::write_text_file(dir / "g/meta.json", meta.dump(2));
  format::record_digests(dir / "g");
  return run_loom("check " + dir / "g");
}

void expect_problem(const CommandResult& r, const std::string& problem) {
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_TRUE(contains(r.output, "loom: problem: ")) << r.output;
  EXPECT_TRUE(contains(r.output, problem)) << "expected '" << problem << "' in: " << r.output;
}

TEST(CliCheckInvariants, ASoundStorePasses) {
  ScratchDir dir;
  const auto r = check(dir, cycle());
  EXPECT_EQ(r.status, 0) << r.output;
}

TEST(CliCheckInvariants, ARowNotAscendingIsNamed) {
  ScratchDir dir;
  auto d = cycle();
  d.indices = {3, 1, 0, 2, 1, 3, 0, 2};
  expect_problem(check(dir, d), "indices.npy: entry 1: row 0: neighbour 1 after 3 (not ascending)");
}

TEST(CliCheckInvariants, ADuplicateNeighbourIsNamedUnlessTheImportKeptThem) {
  ScratchDir dir;
  auto d = cycle();
  d.indptr = {0, 3, 5, 7, 9};
  d.indices = {1, 1, 3, 0, 2, 1, 3, 0, 2};  // row 0 holds neighbour 1 twice
  expect_problem(check(dir, d), "indices.npy: entry 1: row 0: neighbour 1 after 1 (a duplicate)");
  d.provenance["edge_policy"] = {{"directed", false}, {"duplicates", "keep"}, {"self_loops", "remove"}};
  const auto kept = check(dir, d);
  EXPECT_EQ(kept.status, 0) << kept.output;
}

TEST(CliCheckInvariants, AnUndirectedStoreThatIsNotSymmetricIsNamed) {
  ScratchDir dir;
  auto d = cycle();
  d.indptr = {0, 2, 3, 5, 7};
  d.indices = {1, 3, 2, 1, 3, 0, 2};  // 0 -> 1 is stored, 1 -> 0 is not
  expect_problem(check(dir, d), "holds the edge 0 -> 1 and not 1 -> 0 (not symmetric)");
  d.directed = true;
  EXPECT_EQ(check(dir, d).status, 0) << "a directed store need not be symmetric";
}

TEST(CliCheckInvariants, SplitIdsTwiceOrInTwoSplitsAreNamed) {
  ScratchDir dir;
  expect_problem(check_with_splits(dir, cycle(), {{"train", {0, 1, 0}}}),
                 "train_idx.npy: entry 2: node 0 appears twice in the train split");
  expect_problem(check_with_splits(dir, cycle(), {{"test", {3, 1}}}),
                 "train_idx.npy: entry 1: node 1 is in both the test and the train split");
}

TEST(CliCheckInvariants, FeatureValuesAndWeightsThatAreNotFiniteAreNamed) {
  ScratchDir dir;
  auto d = cycle();
  d.feat[5] = std::numeric_limits<float>::quiet_NaN();
  expect_problem(check(dir, d), "feat.npy: row 2, column 1: feature value nan is not finite");
  d = cycle();
  d.edge_weight.assign(d.indices.size(), 1.0f);
  d.edge_weight[6] = -std::numeric_limits<float>::infinity();
  expect_problem(check(dir, d), "weight.npy: row 6, column 0: edge weight -inf is not finite");
}

TEST(CliCheckInvariants, ImportWarnsWhenALabelLeavesMostClassesEmpty) {
  ScratchDir dir;
  write_gz_files(dir / "ogb", {{"raw/edge.csv.gz", "0,1\n1,2\n2,3\n"},
                               {"raw/num-node-list.csv.gz", "4\n"},
                               {"raw/node-label.csv.gz", "0\n1\n999\n1\n"}});
  const auto r = run_loom("import ogb " + dir / "ogb" + " -o " + dir / "g");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "3 of the 1000 classes")) << r.output;
  EXPECT_TRUE(contains(r.output, "label 999")) << r.output;
}

}  // namespace
}  // namespace loom::test
