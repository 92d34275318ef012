#include "loom/graph/io/fashion_mnist.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "loom/core/error.hpp"
#include "loom/core/rng.hpp"
#include "support/test_support.hpp"

namespace loom::graph::io {
namespace {

using test::be32;

// A Fashion-MNIST-like folder: `train` and `test` random 4x4 images with labels i % 10.
void write_dataset(const std::string& dir, std::uint32_t train, std::uint32_t test, std::uint64_t seed = 1) {
  core::Rng rng(seed);
  for (auto [prefix, count] : {std::pair<std::string, std::uint32_t>{"train", train}, {"t10k", test}}) {
    std::string images{char(0), char(0), char(8), char(3)};
    images += be32(count) + be32(4) + be32(4);
    for (std::uint32_t i = 0; i < count * 16; ++i) images += char(rng.below(256));
    std::string labels{char(0), char(0), char(8), char(1)};
    labels += be32(count);
    for (std::uint32_t i = 0; i < count; ++i) labels += char(i % 10);
    test::write_file(dir + "/" + prefix + "-images-idx3-ubyte.gz", images, /*gzip=*/true);
    test::write_file(dir + "/" + prefix + "-labels-idx1-ubyte.gz", labels, /*gzip=*/true);
  }
}

FashionMnistOptions options_for(const std::string& dir) {
  FashionMnistOptions o;
  o.source_dir = dir;
  o.k = 3;
  o.valid = 5;
  return o;
}

TEST(FashionMnist, BuildsKnnGraphWithPixelsLabelsAndSplits) {
  test::ScratchDir dir;
  write_dataset(dir.path(), 30, 10);
  const GraphData d = build_fashion_mnist(options_for(dir.path()));
  ASSERT_EQ(d.num_rows(), 40);
  EXPECT_EQ(d.feat_dim, 16);
  EXPECT_EQ(d.num_classes, 10);
  for (float f : d.feat) ASSERT_TRUE(f >= 0.0f && f <= 1.0f);
  EXPECT_EQ(d.label[13], 3);
  EXPECT_EQ(d.label[30 + 7], 7);  // test images follow the training images
  EXPECT_EQ(d.splits.at("valid").size(), 5u);
  EXPECT_EQ(d.splits.at("train").size(), 25u);
  ASSERT_EQ(d.splits.at("test").size(), 10u);
  EXPECT_EQ(d.splits.at("test").front(), 30);
  for (auto v : d.splits.at("train")) EXPECT_LT(v, 30);
  // Every node keeps at least its own k neighbours; the graph is symmetric.
  for (std::int64_t v = 0; v < 40; ++v) {
    EXPECT_GE(d.indptr[v + 1] - d.indptr[v], 3);
    for (auto e = d.indptr[v]; e < d.indptr[v + 1]; ++e) {
      const auto u = d.indices[e];
      EXPECT_TRUE(std::binary_search(d.indices.begin() + d.indptr[u], d.indices.begin() + d.indptr[u + 1], v));
    }
  }
  EXPECT_EQ(d.provenance["k"], 3);
  EXPECT_EQ(d.provenance["metric"], "cosine");
}

TEST(FashionMnist, ValidCarveOutFollowsTheSeed) {
  test::ScratchDir dir;
  write_dataset(dir.path(), 30, 10);
  auto o = options_for(dir.path());
  const auto a = build_fashion_mnist(o).splits.at("valid");
  EXPECT_EQ(build_fashion_mnist(o).splits.at("valid"), a);
  o.seed = 9;
  EXPECT_NE(build_fashion_mnist(o).splits.at("valid"), a);
}

void expect_error_containing(const FashionMnistOptions& o, const std::string& fragment) {
  try {
    build_fashion_mnist(o);
    FAIL() << "no error, expected " << fragment;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(FashionMnist, MissingOrInconsistentFilesAreNamed) {
  test::ScratchDir dir;
  write_dataset(dir.path(), 30, 10);
  std::filesystem::remove(dir / "t10k-labels-idx1-ubyte.gz");
  expect_error_containing(options_for(dir.path()), "t10k-labels-idx1-ubyte.gz");

  write_dataset(dir.path(), 30, 10);
  std::string labels{char(0), char(0), char(8), char(1)};
  labels += be32(29) + std::string(29, char(1));
  test::write_file(dir / "train-labels-idx1-ubyte.gz", labels, true);
  expect_error_containing(options_for(dir.path()), "29 labels for 30 images");

  labels = std::string{char(0), char(0), char(8), char(1)} + be32(30) + std::string(30, char(12));
  test::write_file(dir / "train-labels-idx1-ubyte.gz", labels, true);
  expect_error_containing(options_for(dir.path()), "not a class");
}

TEST(FashionMnist, RejectsBadKAndValid) {
  test::ScratchDir dir;
  write_dataset(dir.path(), 30, 10);
  auto o = options_for(dir.path());
  o.k = 40;
  expect_error_containing(o, "--k");
  o = options_for(dir.path());
  o.valid = 30;
  expect_error_containing(o, "--valid");
}

TEST(FashionMnist, ImportWritesStoreOrNothing) {
  test::ScratchDir dir;
  write_dataset(dir.path(), 30, 10);
  auto o = options_for(dir.path());
  import_fashion_mnist(o, dir / "store", StoreWriteOptions{});
  const auto store = GraphStore::open(dir / "store");
  EXPECT_EQ(store.num_nodes(), 40);
  EXPECT_EQ(store.meta().num_classes, 10);
  o.k = 0;
  EXPECT_THROW(import_fashion_mnist(o, dir / "bad", StoreWriteOptions{}), Error);
  o.k = 50;
  EXPECT_THROW(import_fashion_mnist(o, dir / "bad", StoreWriteOptions{}), Error);
  for (const auto& entry : std::filesystem::directory_iterator(dir.path()))
    EXPECT_EQ(entry.path().filename().string().find("bad"), std::string::npos) << entry.path();
}

}  // namespace
}  // namespace loom::graph::io
