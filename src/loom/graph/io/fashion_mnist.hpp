// `loom import fashion-mnist`: a real graph with real features and labels built from Debian's
// dataset-fashion-mnist IDX files (train-images-idx3-ubyte.gz, train-labels-idx1-ubyte.gz,
// t10k-images-idx3-ubyte.gz, t10k-labels-idx1-ubyte.gz in one folder). Nodes are the training
// images then the test images; features are pixels / 255; labels the 10 classes; edges the
// union of each image's exact k nearest neighbours by cosine similarity (stored symmetric,
// duplicates removed). Splits: test = the t10k images, valid = a seeded random `valid` of the
// training images, train = the other training images. The store appears whole or not at all.
#pragma once

#include <cstdint>
#include <string>

#include "loom/format/npy.hpp"
#include "loom/graph/store.hpp"

namespace loom::graph::io {

struct FashionMnistOptions {
  std::string source_dir;
  int k = 10;
  std::int64_t valid = 5000;
  std::uint64_t seed = 0;
};

// Reads and validates the four IDX files (Error naming the file on any problem) and builds the
// graph. Provenance records k, the metric and the kNN time.
GraphData build_fashion_mnist(const FashionMnistOptions& options);

// build_fashion_mnist + an atomic write to `output_dir` (checked before the work starts).
void import_fashion_mnist(const FashionMnistOptions& options, const std::string& output_dir,
                          const StoreWriteOptions& write);

}  // namespace loom::graph::io
