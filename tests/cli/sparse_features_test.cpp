// The sparse feature layout end to end (issue 60): `loom import --feature-layout sparse|auto`
// and `loom generate sbm --words` write the rows as CSR (no values file for binary rows), `loom info` and `loom check`
// describe and verify it, `loom partition` keeps it in every part, and `loom train` on a sparse and a dense store of
// the same graph gives the same losses (within 1e-4 relative: the sparse first layer sums in another order); a row
// whose columns are out of range or out of order is named by `check` and refused by `train`.
#include <cmath>
#include <filesystem>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "loom/core/fs.hpp"
#include "loom/format/npy.hpp"
#include "support/test_support.hpp"

namespace fs = std::filesystem;

namespace loom {
namespace {

using test::contains;

constexpr std::int64_t kNodes = 400, kDim = 60;

// A ring with chords; each node has three binary features (its class's and two of its own) and one
// real-valued feature where `weighted`; 40% train, 20% valid, the rest test.
void write_arrays(const std::string& dir, bool weighted) {
  fs::create_directories(dir);
  std::vector<std::int64_t> src, dst, label, train, valid, test;
  std::vector<float> feat(static_cast<std::size_t>(kNodes * kDim), 0.0F);
  for (std::int64_t v = 0; v < kNodes; ++v) {
    for (const std::int64_t step : {1, 7, 31}) {
      src.push_back(v);
      dst.push_back((v + step) % kNodes);
    }
    label.push_back(v % 4);
    float* row = feat.data() + v * kDim;
    row[v % 4] = 1;
    row[4 + (v * 7) % 50] = 1;
    row[4 + (v * 13 + 5) % 50] = 1;
    if (weighted) row[kDim - 1] = 0.25F * static_cast<float>(v % 3);
    (v % 5 < 2 ? train : v % 5 == 2 ? valid : test).push_back(v);
  }
  format::write_npy(dir + "/src.npy", src);
  format::write_npy(dir + "/dst.npy", dst);
  format::write_npy(dir + "/label.npy", label);
  format::write_npy(dir + "/feat.npy", feat, {kNodes, kDim});
  format::write_npy(dir + "/train_idx.npy", train);
  format::write_npy(dir + "/valid_idx.npy", valid);
  format::write_npy(dir + "/test_idx.npy", test);
}

nlohmann::json meta_of(const std::string& store) {
  return nlohmann::json::parse(core::read_text_file(store + "/meta.json"));
}

std::vector<double> losses(const std::string& metrics) {
  std::vector<double> out;
  std::istringstream lines(core::read_text_file(metrics));
  for (std::string line; std::getline(lines, line);) {
    const auto record = nlohmann::json::parse(line);
    if (record.contains("loss")) out.push_back(record["loss"].get<double>());
  }
  return out;
}

// The same losses within 1e-4 relative (the sparse first layer sums in another order).
void expect_same_losses(const std::vector<double>& sparse, const std::vector<double>& dense) {
  ASSERT_EQ(sparse.size(), dense.size());
  for (std::size_t k = 0; k < dense.size(); ++k) EXPECT_NEAR(sparse[k], dense[k], 1e-4 * std::abs(dense[k])) << k;
}

const std::string kTrain = " --epochs 2 --layers 2 --fanouts 5,5 --hidden 16 --batch-size 64 --threads 1 --quiet";

TEST(CliSparseFeatures, ImportInfoCheckAndTrainAsTheDenseStore) {
  test::ScratchDir s;
  write_arrays(s / "arrays", /*weighted=*/false);
  ASSERT_EQ(test::run_loom("import npy " + s / "arrays" + " -o " + s / "dense").status, 0);
  const auto r = test::run_loom("import npy " + s / "arrays" + " -o " + s / "sparse --feature-layout sparse");
  ASSERT_EQ(r.status, 0) << r.output;
  const auto meta = meta_of(s / "sparse");
  EXPECT_EQ(meta["feat_layout"], "sparse");
  EXPECT_EQ(meta["feat_nnz"], 3 * kNodes);
  EXPECT_FALSE(fs::exists(s / "sparse/feat.npy"));
  EXPECT_FALSE(fs::exists(s / "sparse/feat_values.npy")) << "binary rows need no values";
  EXPECT_EQ(format::read_npy_as<std::int64_t>(s / "sparse/feat_indptr.npy").back(), 3 * kNodes);
  EXPECT_FALSE(meta_of(s / "dense").contains("feat_layout"));
  const auto info = test::run_loom("info " + s / "sparse");
  EXPECT_TRUE(contains(info.output, "sparse: 1200 nonzero (5.00%)")) << info.output;
  EXPECT_EQ(test::run_loom("check " + s / "sparse").status, 0);
  // auto: 5% nonzero is below the threshold.
  ASSERT_EQ(test::run_loom("import npy " + s / "arrays" + " -o " + s / "auto --feature-layout auto").status, 0);
  EXPECT_EQ(meta_of(s / "auto")["feat_layout"], "sparse");

  for (const std::string store : {"dense", "sparse"})
    ASSERT_EQ(test::run_loom("train " + s / store + kTrain + " --metrics " + s / (store + ".jsonl")).status, 0);
  const auto dense = losses(s / "dense.jsonl"), sparse = losses(s / "sparse.jsonl");
  ASSERT_EQ(dense.size(), 2u);
  expect_same_losses(sparse, dense);
}

TEST(CliSparseFeatures, ValuedRowsKeepTheirValuesAndPartsKeepTheLayout) {
  test::ScratchDir s;
  write_arrays(s / "arrays", /*weighted=*/true);
  ASSERT_EQ(test::run_loom("import npy " + s / "arrays" + " -o " + s / "sparse --feature-layout sparse").status, 0);
  EXPECT_TRUE(fs::exists(s / "sparse/feat_values.npy"));
  const auto r = test::run_loom("partition " + s / "sparse" + " -k 2 --method metis -o " + s / "parts");
  ASSERT_EQ(r.status, 0) << r.output;
  std::int64_t nnz = 0;
  for (const std::string part : {"part-0", "part-1"}) {
    const auto meta = meta_of(s / "parts" + "/" + part);
    EXPECT_EQ(meta["feat_layout"], "sparse");
    EXPECT_FALSE(fs::exists(s / "parts" + "/" + part + "/feat.npy"));
    nnz += meta["feat_nnz"].get<std::int64_t>();
  }
  EXPECT_EQ(nnz, meta_of(s / "sparse")["feat_nnz"].get<std::int64_t>());
  EXPECT_EQ(test::run_loom("check " + s / "parts").status, 0);
}

// `loom generate sbm --words K`: binary bag-of-words rows, K words each, stored sparse (or dense
// with --words-layout dense: the same rows, the same training).
TEST(CliSparseFeatures, GeneratedBagOfWordsRows) {
  test::ScratchDir s;
  const std::string gen = "generate sbm --nodes 500 --classes 4 --avg-degree 8 --feat-dim 200 --words 6 --seed 2 -o ";
  ASSERT_EQ(test::run_loom(gen + s / "sparse").status, 0);
  ASSERT_EQ(test::run_loom(gen + s / "dense --words-layout dense").status, 0);
  const auto meta = meta_of(s / "sparse");
  EXPECT_EQ(meta["feat_layout"], "sparse");
  EXPECT_EQ(meta["feat_nnz"], 500 * 6);
  EXPECT_FALSE(meta_of(s / "dense").contains("feat_layout"));
  EXPECT_EQ(test::run_loom("check " + s / "sparse").status, 0);
  for (const std::string store : {"dense", "sparse"})
    ASSERT_EQ(test::run_loom("train " + s / store + kTrain + " --metrics " + s / (store + ".jsonl")).status, 0);
  expect_same_losses(losses(s / "sparse.jsonl"), losses(s / "dense.jsonl"));
  const auto bad =
      test::run_loom("generate sbm --nodes 50 --classes 2 --avg-degree 4 --feat-dim 10 --words 11 -o " + s / "bad");
  EXPECT_EQ(bad.status, 1);
  EXPECT_TRUE(contains(bad.output, "--words")) << bad.output;
}

TEST(CliSparseFeatures, RowsOutOfRangeOrOrderAreNamed) {
  test::ScratchDir s;
  write_arrays(s / "arrays", /*weighted=*/false);
  ASSERT_EQ(test::run_loom("import npy " + s / "arrays" + " -o " + s / "sparse --feature-layout sparse").status, 0);
  auto indices = format::read_npy_as<std::int32_t>(s / "sparse/feat_indices.npy");
  const auto damage = [&](std::int32_t entry1, const std::string& expected) {
    std::vector<std::int32_t> bad = indices;
    bad[1] = entry1;
    format::write_npy(s / "sparse/feat_indices.npy", bad);
    for (const std::string& command :
         {"check " + s / "sparse --no-verify", "train " + s / "sparse --no-verify" + kTrain}) {
      const auto r = test::run_loom(command);
      EXPECT_EQ(r.status, 1) << command << "\n" << r.output;
      EXPECT_TRUE(contains(r.output, "feat_indices.npy")) << r.output;
      EXPECT_TRUE(contains(r.output, expected)) << r.output;
    }
  };
  damage(static_cast<std::int32_t>(kDim), "outside [0, 60)");
  damage(0, "a row's columns must increase");
}

}  // namespace
}  // namespace loom
