// Options of sampled mini-batch training (`loom train`), as a plain struct of typed values that the
// CLI fills (flags or a TOML --config file, parsed once at the boundary) and tests and benchmarks
// build directly.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "loom/core/enum_names.hpp"
#include "loom/loader/loader_options.hpp"
#include "loom/nn/model.hpp"
#include "loom/sample/epoch_plan.hpp"
#include "loom/train/minibatch/link_options.hpp"
#include "loom/train/run_options.hpp"

namespace loom::train {

// Which weights a run ends with (evaluated, written with -o): the last epoch's, or those of the
// epoch with the best validation score (ties: the lower validation loss, then the earlier epoch).
enum class Selection { kLast, kBestValid };
inline constexpr core::EnumNames<Selection, 2> kSelectionNames{
    {{"last", Selection::kLast}, {"best-valid", Selection::kBestValid}}};
// How the per-epoch validation and test scores are computed: sampled neighbourhoods (SALIENT's
// evaluation, --eval-fanouts) or exact layer-wise inference (the full-graph forward pass).
enum class EvalMode { kSampled, kExact };
inline constexpr core::EnumNames<EvalMode, 2> kEvalModeNames{
    {{"sampled", EvalMode::kSampled}, {"exact", EvalMode::kExact}}};

// How the validation and test splits are scored, and which weights the run keeps (--eval-mode,
// --eval-fanouts, --eval-batch-size, --selection, --patience, --no-exact-eval); when they are
// scored is the run's EvalSchedule.
struct EvaluationOptions {
  EvalMode mode = EvalMode::kSampled;
  Selection selection = Selection::kLast;
  int patience = 0;                       // stop after this many epochs without a better validation score (0 = never)
  std::vector<std::int32_t> fanouts{20};  // one value (used for every layer) or one per layer
  std::int64_t batch_size = 4096;
  bool exact = true;  // exact layer-wise inference after the last epoch
};

struct MinibatchOptions {
  std::string store;  // graph store (1 rank) or partitioned store (one part per rank)
  Task task = Task::kNode;
  LinkOptions link;                              // --task link
  nn::ModelOptions model;                        // in_features and num_classes come from the data
  std::vector<std::int32_t> fanouts{15, 10, 5};  // fanouts[0] is the hop from the seeds; one per layer (-1 = all)
  std::int64_t batch_size = 1024;
  sample::SeedOrder seed_order = sample::SeedOrder::kShuffled;  // of the training seeds in each epoch
  RunOptions run;  // epochs, optimizer, seed, threads, device, memory limit, link
  CheckpointOptions checkpoint;
  OutputOptions output;
  std::int64_t max_steps = 0;            // steps per epoch at most (0 = all): time a bounded part of a large epoch
  std::vector<int> weight_decay_layers;  // layers (0 = the input layer) weight decay applies to; empty = all
  loader::DataPathOptions data_path;
  loader::StaticCacheOptions cache;
  loader::PrefetchSetupOptions prefetch;
  loader::ChangeOptions change;
  EvaluationOptions evaluation;  // how (when: run.eval)
};

// MinibatchOptions that passed check(): every option in range, and as training runs them
// (data_path.whole_graph_gcn_norm set for GCN models), with the data path's group (loader(), which
// holds the checked fanouts of training and evaluation) built from them and checked. Only check()
// makes one, so what takes it (the memory plan, the data path) cannot be handed options that were
// not checked.
class CheckedMinibatchOptions {
 public:
  const MinibatchOptions& operator*() const { return options_; }
  const MinibatchOptions* operator->() const { return &options_; }
  const loader::CheckedLoaderOptions& loader() const { return loader_; }

 private:
  friend CheckedMinibatchOptions check(const MinibatchOptions& options);
  CheckedMinibatchOptions(MinibatchOptions options, loader::CheckedLoaderOptions loader)
      : options_(std::move(options)), loader_(std::move(loader)) {}
  MinibatchOptions options_;
  loader::CheckedLoaderOptions loader_;
};

// The data path's options group of a run: the sampling, data path, cache, prefetch and change
// options, with the run's store, seed, epochs and task.
loader::LoaderOptions loader_options(const MinibatchOptions& options);

// Checks every option (model, fanouts against the layers, cache, prefetch, schedule, selection)
// and throws Error::in_argument naming the first bad one.
CheckedMinibatchOptions check(const MinibatchOptions& options);

}  // namespace loom::train
