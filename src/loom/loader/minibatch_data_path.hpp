// MinibatchDataPath: the data side of sampled mini-batch training, what `loom train` runs and what
// a Python loader runs in its place: over this rank's TrainingData, the device tier of own rows,
// a RemoteFetcher on its own communicator (so that the pipeline's producer thread may fetch while
// the trainer all-reduces), the static cache of remote rows, the prefetch buffer and its
// controller, and the epoch settings (a sampler and batch builder for the base conditions and, from
// --change-epoch on, the changed ones). pipeline(epoch) prepares the epoch's batches in plan order
// (SALIENT's overlap); eval_builder() builds evaluation batches without the prefetch buffer.
// For --task link the batches carry no labels (their seeds are edge endpoints anywhere) and are
// sampled on data.graph(), the message graph.
// The constructor is collective over `world` (errors on every rank together) and writes the
// cache, prefetch and device records to `metrics` on rank 0.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <torch/types.h>

#include "loom/comm/communicator.hpp"
#include "loom/core/metrics.hpp"
#include "loom/feature/feature_source.hpp"
#include "loom/sample/neighbor_sampler.hpp"
#include "loom/loader/batch_builder.hpp"
#include "loom/loader/batch_pipeline.hpp"
#include "loom/loader/device_features.hpp"
#include "loom/loader/loader_options.hpp"
#include "loom/loader/prefetch_setup.hpp"
#include "loom/loader/training_data.hpp"

namespace loom::loader {

// What an epoch trains with: its sampler and builder, batch size, this rank's seed pool, and the
// steps every rank runs (at most --max-steps of the whole epoch's full_steps).
struct EpochSetting {
  std::unique_ptr<sample::NeighborSampler> sampler;
  std::unique_ptr<BatchBuilder> builder;
  std::int64_t batch_size = 0;
  std::vector<std::int64_t> train_ids;
  std::int64_t steps = 0;
  std::int64_t full_steps = 0;
};

// The threads that sample a run's batches: --sample-workers, or 1 on the CPU (where the cores
// train) and, on a GPU (where they would wait), half the rank's threads, at most 8: one batch per
// thread, the rest for the producer's gathers and the training thread.
int sample_workers_for(const DataPathOptions& options, torch::Device device);

class MinibatchDataPath {
 public:
  // `data` is this rank's (open_training_data, normalised); `start_epoch` > 0 when resuming (the
  // oracle cache looks at the epochs to come). Refers to `options`, which must outlive it.
  MinibatchDataPath(const CheckedLoaderOptions& options, TrainingData data, comm::Communicator& world,
                    torch::Device device, int start_epoch, core::MetricsLog& metrics);
  MinibatchDataPath(const MinibatchDataPath&) = delete;
  MinibatchDataPath& operator=(const MinibatchDataPath&) = delete;

  const TrainingData& data() const { return data_; }
  // The fetcher's communicator (also what evaluation and outputs exchange rows over).
  const comm::Communicator& fetch_comm() const { return fetch_comm_; }
  // Whether epoch `epoch` (0-based) runs under the --change-* conditions, and its setting.
  bool changed(int epoch) const { return checked_->change.epoch >= 0 && epoch >= checked_->change.epoch; }
  const EpochSetting& setting(int epoch) const { return changed(epoch) ? changed_ : base_; }
  // The epoch's batches from `first_step` on, prepared --pipeline-depth ahead on a producer thread
  // (collective: every rank drains its pipeline to the end or stops it early at the same step).
  std::unique_ptr<BatchPipeline> pipeline(int epoch, int first_step = 0) const;
  // The same over a plan of the caller's (link prediction's steps) with the base setting's builder.
  std::unique_ptr<BatchPipeline> pipeline_of(std::vector<sample::StepPlan> plan) const;
  const BatchBuilder& eval_builder() const { return *eval_builder_; }
  // Null without --controller.
  PrefetchControl* prefetch_control() const { return prefetch_.control.get(); }
  const feature::PrefetchBuffer* prefetch_buffer() const { return prefetch_.buffer.get(); }

 private:
  TrainingBatches training_batches() const { return {checked_.fanouts(), checked_->batch_size, checked_->seed}; }
  std::unique_ptr<BatchPipeline> make_pipeline(const BatchBuilder& builder, std::vector<sample::StepPlan> plan,
                                               int first_step) const;
  EpochSetting make_setting(const sample::Fanouts& fanouts, std::int64_t batch_size, double train_fraction,
                            comm::Communicator& world) const;

  const CheckedLoaderOptions& checked_;
  TrainingData data_;
  comm::Communicator fetch_comm_;
  DeviceFeatures device_features_;
  std::unique_ptr<feature::RemoteFetcher> fetcher_;
  feature::StaticCache cache_;
  PrefetchSetup prefetch_;
  std::unique_ptr<feature::FeatureSource> features_, eval_features_;
  std::unique_ptr<sample::NeighborSampler> eval_sampler_;
  std::unique_ptr<BatchBuilder> eval_builder_;
  EpochSetting base_, changed_;
};

}  // namespace loom::loader
