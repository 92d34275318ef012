// The options of the data path (seeds -> sampled blocks -> gathered rows -> a batch on the device),
// one group of typed values: how batches are sampled (fanouts, batch size, seed order, the
// changed conditions from --change-epoch on), how they are prepared (pipeline depth, sampling
// workers, superbatches, the device tier and --host-reads), and where remote rows come from (the
// static cache, the prefetch buffer and its controller). `loom train` builds it from its options
// (train/minibatch/minibatch_options.hpp), the Python Loader from its keywords; check() is the
// one place they are checked, and only it makes the CheckedLoaderOptions the data path takes.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "loom/control/controller.hpp"
#include "loom/core/enum_names.hpp"
#include "loom/feature/cache_policy.hpp"
#include "loom/feature/prefetch_buffer.hpp"
#include "loom/feature/remote_fetcher.hpp"
#include "loom/format/dtype.hpp"
#include "loom/graph/feature_norm.hpp"
#include "loom/sample/epoch_plan.hpp"
#include "loom/sample/fanouts.hpp"

namespace loom::loader {

// How the device gets the own rows its tier does not hold (--host-reads): gathered on the host
// into a pinned buffer copied once per step (staged), or read by the device in place from pinned
// host memory (mapped: unified addressing, DGL's UVA), so the host gathers only other ranks' rows.
enum class HostReads { kStaged, kMapped };
inline constexpr core::EnumNames<HostReads, 2> kHostReadsNames{
    {{"staged", HostReads::kStaged}, {"mapped", HostReads::kMapped}}};

// How batches are prepared and where their rows come from (SALIENT++'s pipeline and storage
// tiers): --pipeline-depth, --sample-workers, --superbatch, --device-rows, --device-memory-limit,
// --wire-dtype, --normalize-features, and the GCN normalisation of the batches' graphs.
struct DataPathOptions {
  int pipeline_depth = 4;  // prepared batches in flight; 0 = synchronous fetch (DistDGL-like)
  int sample_workers = 0;  // threads sampling batches at once (0 = 1 on the CPU; on a GPU half the threads, <= 8)
  int superbatch = 1;      // training batches whose rows are fetched in one gather (features on disk: one sweep)
  double device_rows = 0;  // fraction of own feature rows kept on the device, hottest by VIP first
  HostReads host_reads = HostReads::kStaged;  // how the device gets the other own rows
  std::int64_t device_memory_limit = 0;       // device bytes one rank may use (0 = its share of the GPU's free memory)
  feature::WireDType wire_dtype = feature::WireDType::kFloat32;       // feature rows on the wire
  graph::FeatureNorm normalize_features = graph::FeatureNorm::kNone;  // applied to the rows at start-up
  // Every graph of a batch carries the whole graph's GCN normalisation (BatchBuilder): set for GCN
  // models by `loom train`, and by the Python Loader's gcn_norm for a model of the caller's.
  bool whole_graph_gcn_norm = false;
};

// The static cache of remote rows (SALIENT++): --cache, --alpha or --cache-memory, --cache-epochs,
// --cache-dtype.
struct StaticCacheOptions {
  feature::CachePolicy policy = feature::CachePolicy::kNone;
  double alpha = 0;                               // cache rows per rank = alpha * N / K
  std::int64_t memory_bytes = 0;                  // or: as many rows per rank as fit in these bytes
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

// Whether a batch carries its seeds' labels (node tasks: the seeds are this rank's own nodes) or
// none (link prediction: the seeds are edge endpoints anywhere, y is empty).
enum class SeedLabels { kGathered, kNone };

struct LoaderOptions {
  std::string store;  // graph store (1 rank) or partitioned store (one part per rank), named in errors
  SeedLabels seed_labels = SeedLabels::kGathered;
  std::vector<std::int32_t> fanouts{15, 10, 5};  // fanouts[0] is the hop from the seeds; one per layer (-1 = all)
  std::int64_t batch_size = 1024;
  sample::SeedOrder seed_order = sample::SeedOrder::kShuffled;  // of the training seeds in each epoch
  std::uint64_t seed = 0;                                       // the run's: seed plans, sampling, subsets
  int epochs = 1;                                               // the run's (the oracle cache looks ahead)
  std::int64_t max_steps = 0;                                   // steps per epoch at most (0 = all)
  std::vector<std::int32_t> eval_fanouts{20};  // evaluation batches: one value (every layer) or one per layer
  DataPathOptions data_path;
  StaticCacheOptions cache;
  PrefetchSetupOptions prefetch;
  ChangeOptions change;
};

// LoaderOptions that passed check(): every option in range, and the fanouts of training, of
// evaluation (expanded where one value was given for every layer) and of the changed conditions
// (the training ones where --change-fanouts is not given) as the checked sampling specs every
// sampler of the data path is built from.
class CheckedLoaderOptions {
 public:
  const LoaderOptions& operator*() const { return options_; }
  const LoaderOptions* operator->() const { return &options_; }
  const sample::Fanouts& fanouts() const { return fanouts_; }
  const sample::Fanouts& eval_fanouts() const { return eval_fanouts_; }
  const sample::Fanouts& changed_fanouts() const { return changed_fanouts_; }

 private:
  friend CheckedLoaderOptions check(const LoaderOptions& options, int layers);
  CheckedLoaderOptions(LoaderOptions options, sample::Fanouts fanouts, sample::Fanouts eval_fanouts,
                       sample::Fanouts changed_fanouts)
      : options_(std::move(options)),
        fanouts_(std::move(fanouts)),
        eval_fanouts_(std::move(eval_fanouts)),
        changed_fanouts_(std::move(changed_fanouts)) {}
  LoaderOptions options_;
  sample::Fanouts fanouts_, eval_fanouts_, changed_fanouts_;
};

// Checks every option for a model of `layers` layers and throws Error::in_argument naming the
// first bad one by its `loom train` flag (--fanouts, --pipeline-depth, --alpha, ...).
CheckedLoaderOptions check(const LoaderOptions& options, int layers);

}  // namespace loom::loader
