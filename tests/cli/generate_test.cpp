// End-to-end: `loom generate rmat|sbm` and `loom import fashion-mnist` write readable stores,
// identical at any thread count, and fail cleanly (exit 1, argument or file named, nothing
// written) on bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <sstream>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "loom/core/fs.hpp"
#include "loom/format/npy.hpp"
#include "loom/graph/store.hpp"
#include "support/test_support.hpp"

namespace loom {
namespace {

namespace fs = std::filesystem;

using test::be32;
using test::contains;

// Nothing but `keep` (if given) is left in the scratch directory.
void expect_only(const test::ScratchDir& dir, const std::string& keep = "") {
  for (const auto& entry : fs::directory_iterator(dir.path()))
    EXPECT_EQ(entry.path().filename().string(), keep) << "left behind: " << entry.path();
}

TEST(GenerateCli, SbmWritesAStoreIndependentOfThreads) {
  test::ScratchDir dir;
  const std::string args = " --nodes 3000 --classes 5 --avg-degree 10 --feat-dim 8 --seed 4";
  auto one = test::run_loom("generate sbm -o " + (dir / "a") + args + " --threads 1");
  ASSERT_EQ(one.status, 0) << one.output;
  auto two = test::run_loom("generate sbm -o " + (dir / "b") + args + " --threads 2");
  ASSERT_EQ(two.status, 0) << two.output;
  const auto store = graph::GraphStore::open(dir / "a");
  EXPECT_EQ(store.num_nodes(), 3000);
  EXPECT_EQ(store.meta().feat_dim, 8);
  EXPECT_EQ(store.meta().num_classes, 5);
  EXPECT_EQ(store.meta().provenance["generator"], "sbm");
  for (const char* file : {"indptr.npy", "indices.npy", "feat.npy", "label.npy", "train_idx.npy", "test_idx.npy"})
    EXPECT_EQ(core::read_text_file(dir / "a/" + file), core::read_text_file(dir / "b/" + file)) << file;
}

TEST(GenerateCli, RmatWritesAStoreIndependentOfThreads) {
  test::ScratchDir dir;
  const std::string args = " --scale 10 --edge-factor 4 --classes 3 --feat-dim 2";
  auto one = test::run_loom("generate rmat -o " + (dir / "a") + args + " --threads 1");
  ASSERT_EQ(one.status, 0) << one.output;
  auto two = test::run_loom("generate rmat -o " + (dir / "b") + args + " --threads 2 --feat-dtype float16");
  ASSERT_EQ(two.status, 0) << two.output;
  EXPECT_EQ(graph::GraphStore::open(dir / "a").num_nodes(), 1024);
  EXPECT_EQ(graph::GraphStore::open(dir / "b").meta().feat_dtype, format::DType::kFloat16);
  EXPECT_EQ(core::read_text_file(dir / "a/indices.npy"), core::read_text_file(dir / "b/indices.npy"));
}

// The exact evaluation's test accuracy in a metrics file.
double exact_test_accuracy(const std::string& metrics) {
  std::istringstream lines(core::read_text_file(metrics));
  for (std::string line; std::getline(lines, line);) {
    const auto j = nlohmann::json::parse(line);
    if (j.value("event", "") == "exact_eval") return j.at("test_accuracy").get<double>();
  }
  ADD_FAILURE() << "no exact_eval record in " << metrics;
  return 0;
}

TEST(GenerateCli, BFloat16FeaturesAreWidenedOnGatherAndTrainLikeFloat32) {
  test::ScratchDir dir;
  const std::string args = " --nodes 2000 --classes 4 --avg-degree 10 --feat-dim 16 --seed 6";
  for (const char* dtype : {"float32", "bfloat16"}) {
    const auto r = test::run_loom(fmt::format("generate sbm -o {} --feat-dtype {}{}", dir / dtype, dtype, args));
    ASSERT_EQ(r.status, 0) << r.output;
  }
  const auto wide = graph::GraphStore::open(dir / "float32"), narrow = graph::GraphStore::open(dir / "bfloat16");
  EXPECT_EQ(narrow.meta().feat_dtype, format::DType::kBFloat16);
  const auto a = format::read_npy_as<float>(dir / "float32/feat.npy"),
             b = format::read_npy_as<float>(dir / "bfloat16/feat.npy");
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) ASSERT_NEAR(b[i], a[i], std::abs(a[i]) / 256 + 1e-6) << "value " << i;
  EXPECT_EQ(core::read_text_file(dir / "float32/indices.npy"), core::read_text_file(dir / "bfloat16/indices.npy"));

  double accuracy[2];
  int i = 0;
  for (const char* dtype : {"float32", "bfloat16"}) {
    const auto r = test::run_loom("train " + dir / dtype +
                                  " --layers 2 --fanouts 5,5 --hidden 32 --epochs 8 --lr 0.01 --threads 2 "
                                  "--seed 1 --quiet --metrics " +
                                  dir / (std::string(dtype) + ".jsonl"));
    ASSERT_EQ(r.status, 0) << r.output;
    accuracy[i++] = exact_test_accuracy(dir / (std::string(dtype) + ".jsonl"));
  }
  EXPECT_GT(accuracy[0], 0.8);
  EXPECT_NEAR(accuracy[1], accuracy[0], 0.03) << "bfloat16 features train as float32 ones do";
}

TEST(GenerateCli, BadArgumentsFailNamingTheArgumentAndWriteNothing) {
  test::ScratchDir dir;
  const std::string out = " -o " + (dir / "g");
  const std::pair<std::string, std::string> cases[] = {
      {"generate sbm" + out + " --nodes 5 --classes 10 --avg-degree 2 --feat-dim 4", "--nodes"},
      {"generate sbm" + out + " --nodes 100 --classes 2 --avg-degree 4 --feat-dim 4 --homophily 1.2", "--homophily"},
      {"generate sbm" + out + " --nodes 100 --classes 2 --avg-degree 4 --feat-dim 4 --degree-skew 1", "--degree-skew"},
      {"generate rmat" + out + " --scale 0", "--scale"},
      {"generate rmat" + out + " --scale 40", "--scale"},
      {"generate rmat" + out + " --scale 8 --a 0.5 --b 0.3 --c 0.3", "--c"},
  };
  for (const auto& [args, argument] : cases) {
    const auto r = test::run_loom(args);
    EXPECT_EQ(r.status, 1) << args << "\n" << r.output;
    EXPECT_TRUE(contains(r.output, "argument " + argument)) << args << "\n" << r.output;
  }
  expect_only(dir);
}

TEST(GenerateCli, ExistingOutputNeedsOverwrite) {
  test::ScratchDir dir;
  const std::string args = "generate rmat --scale 6 -o " + (dir / "g");
  ASSERT_EQ(test::run_loom(args).status, 0);
  const auto again = test::run_loom(args);
  EXPECT_EQ(again.status, 1);
  EXPECT_TRUE(contains(again.output, "already exists")) << again.output;
  EXPECT_EQ(test::run_loom(args + " --overwrite").status, 0);
  expect_only(dir, "g");
}

TEST(ImportFashionMnistCli, MissingFilesAreNamedAndNothingIsWritten) {
  test::ScratchDir dir;
  fs::create_directories(dir / "src");
  const auto r = test::run_loom("import fashion-mnist " + (dir / "src") + " -o " + (dir / "out"));
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(contains(r.output, "train-images-idx3-ubyte.gz")) << r.output;
  EXPECT_FALSE(fs::exists(dir / "out"));
  expect_only(dir, "src");
}

TEST(ImportFashionMnistCli, ImportsIdxFiles) {
  test::ScratchDir dir;
  for (auto [prefix, count] : {std::pair<std::string, std::uint32_t>{"train", 40}, {"t10k", 12}}) {
    std::string images = std::string{char(0), char(0), char(8), char(3)} + be32(count) + be32(3) + be32(3);
    for (std::uint32_t i = 0; i < count * 9; ++i) images += char((i * 37 + i / 9 * 11) % 251);
    std::string labels = std::string{char(0), char(0), char(8), char(1)} + be32(count);
    for (std::uint32_t i = 0; i < count; ++i) labels += char(i % 10);
    test::write_file(dir / (prefix + "-images-idx3-ubyte.gz"), images, true);
    test::write_file(dir / (prefix + "-labels-idx1-ubyte.gz"), labels, true);
  }
  const auto r = test::run_loom("import fashion-mnist " + dir.path() + " -o " + (dir / "fm") + " --k 4 --valid 6");
  ASSERT_EQ(r.status, 0) << r.output;
  const auto store = graph::GraphStore::open(dir / "fm");
  EXPECT_EQ(store.num_nodes(), 52);
  EXPECT_EQ(store.meta().feat_dim, 9);
  EXPECT_EQ(store.split("valid").size(), 6u);
  EXPECT_EQ(store.split("test").size(), 12u);
  EXPECT_EQ(store.meta().provenance["k"], 4);

  const auto bad = test::run_loom("import fashion-mnist " + dir.path() + " -o " + (dir / "bad") + " --k 52 --valid 6");
  EXPECT_EQ(bad.status, 1);
  EXPECT_TRUE(contains(bad.output, "argument --k")) << bad.output;
  EXPECT_FALSE(fs::exists(dir / "bad"));
}

}  // namespace
}  // namespace loom
