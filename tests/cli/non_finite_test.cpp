// Numbers that are not finite never pass silently (issue 48): an importer refuses a NaN or infinite
// feature value or edge weight naming the file, row (or line) and column, unless --nan-as replaces
// them (counted in the store's provenance); a floating-point option refuses "inf" and "nan"; and
// training stops, naming epoch and step, at the first loss or gradient that is not finite.
#include <filesystem>
#include <limits>

#include <nlohmann/json.hpp>

#include "loom/core/fs.hpp"
#include "loom/format/npy.hpp"
#include "support/test_support.hpp"

namespace fs = std::filesystem;

namespace loom {
namespace {

using test::contains;

void make_ogb(const std::string& dir, const std::string& features) {
  test::write_gz_files(dir, {{"raw/edge.csv.gz", "0,1\n1,2\n2,3\n3,0\n"},
                             {"raw/num-node-list.csv.gz", "4\n"},
                             {"raw/num-edge-list.csv.gz", "4\n"},
                             {"raw/node-feat.csv.gz", features},
                             {"raw/node-label.csv.gz", "0\n1\n0\n1\n"}});
}

void expect_error(const test::CommandResult& r, int status, const std::string& message) {
  EXPECT_EQ(r.status, status) << r.output;
  EXPECT_TRUE(contains(r.output, message)) << "expected '" << message << "' in: " << r.output;
}

TEST(CliNonFinite, OgbFeatureNanIsAnErrorNamingLineAndField) {
  test::ScratchDir s;
  make_ogb(s / "ogb", "1,2\n3,4\n5,nan\n7,8\n");
  expect_error(test::run_loom("import ogb " + s / "ogb" + " -o " + s / "store"), 1,
               "node-feat.csv.gz:3: field 2: feature value nan is not finite (--nan-as VALUE replaces such values)");
  EXPECT_FALSE(fs::exists(s / "store"));
}

TEST(CliNonFinite, NanAsReplacesAndRecordsTheCount) {
  test::ScratchDir s;
  make_ogb(s / "ogb", "1,inf\n3,4\n5,nan\n7,8\n");
  const auto r = test::run_loom("import ogb " + s / "ogb" + " -o " + s / "store --nan-as 0");
  ASSERT_EQ(r.status, 0) << r.output;
  const auto meta = nlohmann::json::parse(core::read_text_file(s / "store/meta.json"));
  EXPECT_EQ(meta["provenance"]["non_finite"]["values_replaced"], 2);
  EXPECT_EQ(meta["provenance"]["non_finite"]["replaced_with"], 0.0);
  const auto array = format::NpyArray::map(s / "store/feat.npy");
  const auto feat = array.span<float>();
  EXPECT_EQ(feat[1], 0.0f);
  EXPECT_EQ(feat[5], 0.0f);
  EXPECT_EQ(feat[6], 7.0f);
}

TEST(CliNonFinite, NpyFeatureInfinityIsAnErrorNamingRowAndColumn) {
  test::ScratchDir s;
  fs::create_directories(s / "arrays");
  format::write_npy(s / "arrays/src.npy", std::vector<std::int64_t>{0, 1});
  format::write_npy(s / "arrays/dst.npy", std::vector<std::int64_t>{1, 2});
  std::vector<float> feat = {1, 2, 3, 4, 5, std::numeric_limits<float>::infinity()};
  format::write_npy(s / "arrays/feat.npy", std::span<const float>(feat), {3, 2});
  expect_error(test::run_loom("import npy " + s / "arrays" + " -o " + s / "store"), 1,
               "feat.npy: row 2, column 1: feature value inf is not finite");
}

TEST(CliNonFinite, EdgeWeightNanIsAnErrorUnlessReplaced) {
  test::ScratchDir s;
  test::write_file(s / "e.txt", "0 1 0.5\n1 2 nan\n");
  expect_error(test::run_loom("import edgelist --weighted " + s / "e.txt" + " -o " + s / "store"), 1,
               "e.txt:2: field 3: edge weight nan is not finite");
  const auto r = test::run_loom("import edgelist --weighted " + s / "e.txt" + " -o " + s / "store --nan-as 1");
  ASSERT_EQ(r.status, 0) << r.output;
  const auto meta = nlohmann::json::parse(core::read_text_file(s / "store/meta.json"));
  EXPECT_EQ(meta["provenance"]["non_finite"]["values_replaced"], 1);
}

TEST(CliNonFinite, FloatingOptionsRefuseInfinityAndNan) {
  test::ScratchDir s;
  expect_error(test::run_loom("train " + s / "absent --lr inf"), 2, "--lr: 'inf' is not a finite number");
  expect_error(test::run_loom("train " + s / "absent --lr nan"), 2, "--lr: 'nan' is not a finite number");
  expect_error(test::run_loom("train " + s / "absent --weight-decay 1e999"), 2, "'1e999' is not a finite number");
  expect_error(test::run_loom("import ogb " + s / "absent -o " + s / "x --nan-as -inf"), 2,
               "--nan-as: '-inf' is not a finite number");
}

TEST(CliNonFinite, ThreadCountsAreBoundedByTheHost) {
  test::ScratchDir s;
  expect_error(test::run_loom("train " + s / "absent --threads 100000"), 2, "--threads: 100000 threads on a host of");
  expect_error(test::run_loom("train " + s / "absent --threads -1"), 2, "--threads: must be >= 0, got -1");
  expect_error(test::run_loom("embed deepwalk " + s / "absent -o " + s / "e.txt --threads 5000"), 2,
               "--threads: 5000 threads");
}

// A learning rate so large that the weights overflow within a few steps.
TEST(CliNonFinite, TrainingStopsAtTheFirstLossThatIsNotFinite) {
  test::ScratchDir s;
  auto r =
      test::run_loom("generate sbm -o " + s / "g" + " --nodes 600 --classes 3 --avg-degree 6 --feat-dim 8 --seed 1");
  ASSERT_EQ(r.status, 0) << r.output;
  r = test::run_loom("train " + s / "g" + " --lr 1e30 --epochs 3 --hidden 16 --batch-size 64 --quiet --metrics " +
                     s / "m.jsonl");
  expect_error(r, 1, "is not finite");
  EXPECT_TRUE(contains(r.output, "loom: error: epoch ")) << r.output;
  EXPECT_TRUE(contains(r.output, ", step ")) << r.output;
  EXPECT_TRUE(contains(r.output, "training stopped before the step was applied")) << r.output;
  r = test::run_loom("partition " + s / "g" + " -k 1 --method random -o " + s / "p");
  ASSERT_EQ(r.status, 0) << r.output;
  r = test::run_loom("fullgraph " + s / "p" + " --model gcnii --layers 4 --hidden 16 --lr 1e30 --epochs 5 --quiet");
  expect_error(r, 1, "is not finite");
  EXPECT_TRUE(contains(r.output, "loom: error: epoch ")) << r.output;
}

}  // namespace
}  // namespace loom
