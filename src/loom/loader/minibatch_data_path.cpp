#include "loom/loader/minibatch_data_path.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "loom/core/parallel.hpp"
#include "loom/core/rng.hpp"
#include "loom/sample/epoch_plan.hpp"
#include "loom/loader/cache_setup.hpp"
#include "loom/loader/device_setup.hpp"

namespace loom::loader {

MinibatchDataPath::MinibatchDataPath(const CheckedLoaderOptions& checked, TrainingData data, comm::Communicator& world,
                                     torch::Device device, int start_epoch, core::MetricsLog& metrics)
    : checked_(checked),
      data_(std::move(data)),
      fetch_comm_(world.dup()),
      device_features_(build_device_features(checked_->data_path.device_rows, checked_->data_path.host_reads,
                                             training_batches(), data_, device, world)) {
  const LoaderOptions& options = *checked_;
  const int rank = world.rank();
  fetcher_ = std::make_unique<feature::RemoteFetcher>(
      fetch_comm_, data_.book, device_features_.host_rows(data_.features), options.data_path.wire_dtype);
  const std::int64_t steps = world.allreduce_max(
      sample::steps_per_epoch(std::array{static_cast<std::int64_t>(data_.train_ids.size())}, options.batch_size),
      comm::Channel::control);
  LOOM_CHECK(steps > 0 || options.epochs == 0, "{}: no training nodes on any rank", options.store);

  nlohmann::json cache_record;
  cache_ = build_static_cache(options.cache, training_batches(), data_, steps, start_epoch, options.epochs, *fetcher_,
                              world, cache_record);
  if (rank == 0 && !cache_record.is_null()) metrics.write(cache_record);
  nlohmann::json prefetch_record;
  prefetch_ = build_prefetch(options.prefetch, training_batches(), data_, *fetcher_, world, prefetch_record);
  if (rank == 0 && !prefetch_record.is_null()) metrics.write(prefetch_record);
  if (device.type() != torch::kCPU || options.data_path.device_rows > 0) {
    const nlohmann::json record = device_record(device_features_, data_, world);
    if (rank == 0) metrics.write(record);
  }

  const bool mapped = device_features_.maps_own_rows();
  features_ = std::make_unique<feature::FeatureSource>(*fetcher_, &cache_, prefetch_.buffer.get(),
                                                       &device_features_.tier(), mapped);
  eval_features_ =
      std::make_unique<feature::FeatureSource>(*fetcher_, &cache_, nullptr, &device_features_.tier(), mapped);
  eval_sampler_ = std::make_unique<sample::NeighborSampler>(data_.graph(), checked.eval_fanouts());
  eval_builder_ = std::make_unique<BatchBuilder>(data_, *eval_sampler_, *eval_features_, &device_features_,
                                                 checked_->data_path.whole_graph_gcn_norm, checked_->seed_labels);
  base_ = make_setting(checked.fanouts(), options.batch_size, 1.0, world);
  if (options.change.epoch >= 0)
    changed_ = make_setting(checked.changed_fanouts(),
                            options.change.batch_size > 0 ? options.change.batch_size : options.batch_size,
                            options.change.train_fraction, world);
}

EpochSetting MinibatchDataPath::make_setting(const sample::Fanouts& fanouts, std::int64_t batch_size,
                                             double train_fraction, comm::Communicator& world) const {
  EpochSetting s;
  s.sampler = std::make_unique<sample::NeighborSampler>(data_.graph(), fanouts);
  s.builder = std::make_unique<BatchBuilder>(data_, *s.sampler, *features_, &device_features_,
                                             checked_->data_path.whole_graph_gcn_norm, checked_->seed_labels);
  s.batch_size = batch_size;
  s.train_ids = data_.train_ids;
  if (train_fraction < 1) {  // a seeded subset of this rank's training nodes
    core::Rng rng = core::Rng(checked_->seed).split(0x73756273 /*"subs"*/, static_cast<std::uint64_t>(world.rank()));
    core::shuffle(s.train_ids.begin(), s.train_ids.end(), rng);
    s.train_ids.resize(static_cast<std::size_t>(std::ceil(train_fraction * static_cast<double>(s.train_ids.size()))));
    std::sort(s.train_ids.begin(), s.train_ids.end());
  }
  s.full_steps = world.allreduce_max(
      sample::steps_per_epoch(std::array{static_cast<std::int64_t>(s.train_ids.size())}, batch_size),
      comm::Channel::control);
  s.steps = checked_->max_steps > 0 ? std::min(s.full_steps, checked_->max_steps) : s.full_steps;
  return s;
}

int sample_workers_for(const DataPathOptions& options, torch::Device device) {
  if (options.sample_workers > 0) return options.sample_workers;
  return device.is_cuda() ? std::clamp(core::num_threads() / 2, 1, 8) : 1;
}

std::unique_ptr<BatchPipeline> MinibatchDataPath::pipeline(int epoch, int first_step) const {
  const EpochSetting& s = setting(epoch);
  return make_pipeline(
      *s.builder,
      sample::plan_epoch(s.train_ids, s.steps, s.batch_size, checked_->seed, epoch, data_.rank, checked_->seed_order),
      first_step);
}

std::unique_ptr<BatchPipeline> MinibatchDataPath::pipeline_of(std::vector<sample::StepPlan> plan) const {
  return make_pipeline(*base_.builder, std::move(plan), 0);
}

std::unique_ptr<BatchPipeline> MinibatchDataPath::make_pipeline(const BatchBuilder& builder,
                                                                std::vector<sample::StepPlan> plan,
                                                                int first_step) const {
  return std::make_unique<BatchPipeline>(
      builder, std::move(plan), checked_->data_path.pipeline_depth, prefetch_.control.get(),
      prefetch_.buffer ? prefetch_.buffer->options().lookahead : 0, static_cast<std::size_t>(first_step),
      sample_workers_for(checked_->data_path, device_features_.device()), checked_->data_path.superbatch);
}

}  // namespace loom::loader
