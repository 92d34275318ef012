// `loom import fashion-mnist SRC -o DIR`: Fashion-MNIST as an exact kNN graph store.
#include <memory>

#include "loom/cli/commands.hpp"
#include "loom/cli/typed_options.hpp"
#include "loom/format/npy.hpp"
#include "loom/core/parallel.hpp"
#include "loom/graph/io/fashion_mnist.hpp"

namespace loom::cli {

namespace {
struct FashionMnistArgs {
  graph::io::FashionMnistOptions options;
  std::string output;
  bool overwrite = false;
  format::DType feat_dtype = format::DType::kFloat32;
  int threads = 0;
};
}  // namespace

void add_import_fashion_mnist(CLI::App& import_cmd, Action& action) {
  auto args = std::make_shared<FashionMnistArgs>();
  auto* sub = import_cmd.add_subcommand(
      "fashion-mnist", "Fashion-MNIST (Debian dataset-fashion-mnist IDX files) as an exact cosine kNN graph");
  sub->add_option("src", args->options.source_dir, "Folder with train-*/t10k-* IDX .gz files")->required();
  sub->add_option("-o,--output", args->output, "Output graph store directory")->required();
  sub->add_option("--k", args->options.k, "Neighbours per image")->capture_default_str();
  sub->add_option("--valid", args->options.valid, "Validation images carved at random from the training set")
      ->capture_default_str();
  sub->add_option("--seed", args->options.seed, "Seed of the validation carve-out")->capture_default_str();
  sub->add_option("--threads", args->threads, "Threads (0 = all cores)")->capture_default_str();
  add_enum_option(*sub, "--feat-dtype", args->feat_dtype, format::kFeatDTypeNames, "Feature storage type");
  sub->add_flag("--overwrite", args->overwrite, "Replace DIR if it exists");
  sub->callback([&action, args] {
    action = [args] {
      core::set_num_threads(args->threads);
      graph::StoreWriteOptions write;
      write.overwrite = args->overwrite;
      write.feat_dtype = args->feat_dtype;
      graph::io::import_fashion_mnist(args->options, args->output, write);
      return 0;
    };
  });
}

}  // namespace loom::cli
