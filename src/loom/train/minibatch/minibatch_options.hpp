// Options of sampled mini-batch training (`loom train`), as a plain struct of typed values that the
// CLI fills (flags or a TOML --config file, parsed once at the boundary) and tests and benchmarks
// build directly.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
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

// How batches are prepared and where their rows come from (SALIENT++'s pipeline and storage
// tiers): --pipeline-depth, --sample-workers, --superbatch, --device-rows, --device-memory-limit,
// --wire-dtype, --normalize-features, and the GCN normalisation of the batches' graphs.
// How the device gets the own rows its tier does not hold (--host-reads): gathered on the host
// into a pinned buffer copied once per step (staged), or read by the device in place from pinned
// host memory (mapped: unified addressing, DGL's UVA), so the host gathers only other ranks' rows.
enum class HostReads { kStaged, kMapped };
inline constexpr core::EnumNames<HostReads, 2> kHostReadsNames{
    {{"staged", HostReads::kStaged}, {"mapped", HostReads::kMapped}}};

struct DataPathOptions {
  int pipeline_depth = 4;  // prepared batches in flight; 0 = synchronous fetch (DistDGL-like)
  int sample_workers = 0;  // threads sampling batches at once (0 = 1 on the CPU; on a GPU half the threads, <= 8)
  int superbatch = 1;      // training batches whose rows are fetched in one gather (features on disk: one sweep)
  double device_rows = 0;  // fraction of own feature rows kept on the device, hottest by VIP first
  HostReads host_reads = HostReads::kStaged;  // how the device gets the other own rows
  std::int64_t device_memory_limit = 0;       // device bytes one rank may use (0 = its share of the GPU's free memory)
  feature::WireDType wire_dtype = feature::WireDType::kFloat32;       // feature rows on the wire
  graph::FeatureNorm normalize_features = graph::FeatureNorm::kNone;  // applied to the rows at start-up
  // Every graph of a batch carries the whole graph's GCN normalisation (BatchBuilder): set by
  // check() for GCN models, and by the Python Loader's gcn_norm for a model of the caller's.
  bool whole_graph_gcn_norm = false;
};

// The static cache of remote rows (SALIENT++): --cache, --alpha, --cache-epochs, --cache-dtype.
struct StaticCacheOptions {
  feature::CachePolicy policy = feature::CachePolicy::kNone;
  double alpha = 0;                               // cache rows per rank = alpha * N / K
  int simulation_epochs = 2;                      // epochs sampled by the `simulation` policy
  format::DType dtype = format::DType::kFloat32;  // rows stored as float32 | float16
};

// The prefetch buffer of halo rows and the controller that drives it (Rudder): --controller,
// --prefetch*, --control-window, --decision-log, --llm-*. A controller of kind kNone: no buffer.
struct PrefetchSetupOptions {
  feature::PrefetchOptions buffer;
  control::ControllerOptions controller{.kind = control::ControllerKind::kNone};
  int window = 8;            // minibatches per controller decision
  std::string decision_log;  // JSON lines of decisions and outcomes (one file per rank)
};

// Changing conditions (--change-*): from epoch `epoch` on (-1 = never), train with these instead.
struct ChangeOptions {
  int epoch = -1;
  std::vector<std::int32_t> fanouts;  // empty = unchanged
  std::int64_t batch_size = 0;        // 0 = unchanged
  double train_fraction = 1;          // sample seeds from this share of each rank's training nodes
};

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
  DataPathOptions data_path;
  StaticCacheOptions cache;
  PrefetchSetupOptions prefetch;
  ChangeOptions change;
  EvaluationOptions evaluation;  // how (when: run.eval)
};

// MinibatchOptions that passed check(): every option in range, and as training runs them
// (evaluation.fanouts one per layer where one value was given for every layer; data_path.whole_graph_gcn_norm set
// for GCN models). Only check() makes one, so what takes it (the memory plan, the data path)
// cannot be handed options that were not checked.
class CheckedMinibatchOptions {
 public:
  const MinibatchOptions& operator*() const { return options_; }
  const MinibatchOptions* operator->() const { return &options_; }

 private:
  friend CheckedMinibatchOptions check(const MinibatchOptions& options);
  explicit CheckedMinibatchOptions(MinibatchOptions options) : options_(std::move(options)) {}
  MinibatchOptions options_;
};

// Checks every option (model, fanouts against the layers, cache, prefetch, schedule, selection)
// and throws Error::in_argument naming the first bad one.
CheckedMinibatchOptions check(const MinibatchOptions& options);

}  // namespace loom::train
