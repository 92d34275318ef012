#include "loom/graph/io/fashion_mnist.hpp"

#include <numeric>

#include "loom/core/error.hpp"
#include "loom/core/log.hpp"
#include "loom/core/parallel.hpp"
#include "loom/core/timer.hpp"
#include "loom/graph/io/idx_reader.hpp"
#include "loom/graph/generate/knn_graph.hpp"
#include "loom/graph/generate/splits.hpp"
#include "loom/graph/generate/synthetic.hpp"

namespace loom::graph::io {

namespace {

constexpr int kClasses = 10;
constexpr std::uint64_t kValidStream = 1;

struct Part {
  IdxArray images, labels;
};

// One of the two halves (train or t10k), checked for shape and label range.
Part read_part(const std::string& dir, const std::string& prefix) {
  const std::string images_path = dir + "/" + prefix + "-images-idx3-ubyte.gz";
  const std::string labels_path = dir + "/" + prefix + "-labels-idx1-ubyte.gz";
  Part part{read_idx_ubyte(images_path, 3), read_idx_ubyte(labels_path, 1)};
  if (part.labels.dims[0] != part.images.dims[0])
    throw Error::in_file(
        labels_path, 0,
        fmt::format("{} labels for {} images in {}", part.labels.dims[0], part.images.dims[0], images_path));
  for (std::size_t i = 0; i < part.labels.data.size(); ++i)
    if (part.labels.data[i] >= kClasses)
      throw Error::in_file(labels_path, 0,
                           fmt::format("label {} of item {} is not a class in 0..9", part.labels.data[i], i));
  return part;
}

// The images' pixels / 255 as feature rows and their classes as labels: the training images
// first, then the test images.
void set_rows(const Part& train, const Part& test, std::int64_t dim, GraphData& data) {
  const std::int64_t n_train = train.images.dims[0], n = n_train + test.images.dims[0];
  data.feat_dim = dim;
  data.feat.resize(static_cast<std::size_t>(n * dim));
  core::parallel_for(
      n,
      [&](std::int64_t i) {
        const std::uint8_t* pixels =
            i < n_train ? train.images.data.data() + i * dim : test.images.data.data() + (i - n_train) * dim;
        float* out = data.feat.data() + i * dim;
        for (std::int64_t j = 0; j < dim; ++j) out[j] = static_cast<float>(pixels[j]) / 255.0f;
      },
      1024);
  data.num_classes = kClasses;
  data.label.resize(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i)
    data.label[i] = i < n_train ? train.labels.data[i] : test.labels.data[i - n_train];
}

}  // namespace

GraphData build_fashion_mnist(const FashionMnistOptions& options) {
  LOOM_CHECK_ARG(options.k >= 1, "--k", "must be at least 1, got {}", options.k);
  LOOM_CHECK_ARG(options.valid >= 0, "--valid", "must not be negative, got {}", options.valid);
  core::Timer total;
  const Part train = read_part(options.source_dir, "train");
  const Part test = read_part(options.source_dir, "t10k");
  const std::int64_t height = train.images.dims[1], width = train.images.dims[2];
  if (test.images.dims[1] != height || test.images.dims[2] != width)
    throw Error::in_file(options.source_dir + "/t10k-images-idx3-ubyte.gz", 0,
                         fmt::format("images are {}x{}, training images are {}x{}", test.images.dims[1],
                                     test.images.dims[2], height, width));
  const std::int64_t n_train = train.images.dims[0], n_test = test.images.dims[0];
  const std::int64_t n = n_train + n_test, dim = height * width;
  LOOM_CHECK_ARG(options.valid < n_train, "--valid", "must be smaller than the {} training images, got {}", n_train,
                 options.valid);

  GraphData data;
  set_rows(train, test, dim, data);

  core::Timer knn_timer;
  spdlog::info("fashion-mnist: exact {}-NN graph of {} images x {} pixels (cosine)", options.k, n, dim);
  const generate::KnnResult knn = generate::knn_graph(data.feat, n, dim, options.k);
  const double knn_seconds = knn_timer.seconds();
  spdlog::info("fashion-mnist: kNN took {:.1f} s", knn_seconds);

  EdgeList edges = generate::knn_edge_list(knn);
  generate::set_symmetric_graph(edges, data);

  std::vector<std::int64_t> train_pool(static_cast<std::size_t>(n_train));
  std::iota(train_pool.begin(), train_pool.end(), 0);
  data.splits = generate::random_splits(std::move(train_pool), {{"valid", options.valid}}, "train",
                                        core::Rng(options.seed).split(kValidStream));
  data.splits["test"].resize(static_cast<std::size_t>(n_test));
  std::iota(data.splits["test"].begin(), data.splits["test"].end(), n_train);

  data.provenance.update(
      nlohmann::json{{"source", "Debian dataset-fashion-mnist (Zalando Fashion-MNIST), " + options.source_dir},
                     {"generator", "fashion-mnist exact kNN"},
                     {"k", options.k},
                     {"metric", "cosine"},
                     {"edges", "union of each image's k nearest neighbours, symmetric, duplicates removed"},
                     {"features", "pixels / 255"},
                     {"seed", options.seed},
                     {"knn_seconds", knn_seconds},
                     {"seconds", total.seconds()}});
  return data;
}

void import_fashion_mnist(const FashionMnistOptions& options, const std::string& output_dir,
                          const StoreWriteOptions& write) {
  LOOM_CHECK_ARG(options.k >= 1, "--k", "must be at least 1, got {}", options.k);
  LOOM_CHECK_ARG(options.valid >= 0, "--valid", "must not be negative, got {}", options.valid);
  generate::build_and_write_store(output_dir, write, [&] { return build_fashion_mnist(options); });
}

}  // namespace loom::graph::io
