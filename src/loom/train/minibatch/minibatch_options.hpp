// Options of sampled mini-batch training (`loom train`), as a plain struct of typed values that the
// CLI fills (flags or a TOML --config file, parsed once at the boundary) and tests and benchmarks
// build directly.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "loom/comm/link_model.hpp"
#include "loom/control/controller.hpp"
#include "loom/core/enum_names.hpp"
#include "loom/feature/cache_policy.hpp"
#include "loom/feature/prefetch_buffer.hpp"
#include "loom/feature/remote_fetcher.hpp"
#include "loom/graph/feature_norm.hpp"
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
  graph::FeatureNorm normalize_features = graph::FeatureNorm::kNone;  // applied to the rows at start-up
  int pipeline_depth = 4;  // prepared batches in flight; 0 = synchronous fetch (DistDGL-like)
  int sample_workers = 0;  // threads sampling batches at once (0 = 1 on the CPU; on a GPU half the threads, <= 8)
  int superbatch = 1;      // training batches whose rows are fetched in one gather (features on disk: one sweep)
  double device_rows = 0;  // fraction of own feature rows kept on the device, hottest by VIP first
  std::int64_t device_memory_limit = 0;  // device bytes one rank may use (0 = its share of the GPU's free memory)
  feature::WireDType wire_dtype = feature::WireDType::kFloat32;  // feature rows on the wire
  feature::CachePolicy cache = feature::CachePolicy::kNone;      // static cache of remote rows
  double alpha = 0;                                              // cache rows per rank = alpha * N / K
  int cache_epochs = 2;                                          // epochs sampled by the `simulation` policy
  core::DType cache_dtype = core::DType::kFloat32;               // cache rows stored as float32 | float16
  // Prefetch buffer of halo rows driven by a controller (Rudder); ControllerKind::kNone = no buffer.
  feature::PrefetchOptions prefetch;
  control::ControllerOptions control{.kind = control::ControllerKind::kNone};
  int control_window = 8;    // minibatches per controller decision
  std::string decision_log;  // JSON lines of decisions and outcomes (one file per rank)
  // Changing conditions: from epoch `change_epoch` on (-1 = never), train with these instead.
  int change_epoch = -1;
  std::vector<std::int32_t> change_fanouts;  // empty = unchanged
  std::int64_t change_batch_size = 0;        // 0 = unchanged
  double change_train_fraction = 1;          // sample seeds from this share of each rank's training nodes
  EvalMode eval_mode = EvalMode::kSampled;
  Selection selection = Selection::kLast;
  int patience = 0;  // stop after this many epochs without a better validation score (0 = never)
  std::vector<std::int32_t> eval_fanouts{20};  // one value (used for every layer) or one per layer
  std::int64_t eval_batch_size = 4096;
  bool exact_eval = true;  // exact layer-wise inference after the last epoch
};

// Checks every option (model, fanouts against the layers, cache, prefetch, schedule, selection)
// and throws Error::in_argument naming the first bad one. Returns the options as training runs
// them (what plan_minibatch_memory and MinibatchDataPath expect): eval_fanouts one per layer,
// where one value was given for every layer.
MinibatchOptions checked_minibatch_options(const MinibatchOptions& options);

}  // namespace loom::train
