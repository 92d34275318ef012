#include "loom/loader/batch_pipeline.hpp"

#include <algorithm>

#include "loom/core/parallel.hpp"
#include "loom/core/timer.hpp"

namespace loom::loader {

BatchPipeline::BatchPipeline(const BatchBuilder& builder, std::vector<StepPlan> plan, int depth,
                             PrefetchControl* control, int lookahead, std::size_t first_step, int sample_workers,
                             int superbatch)
    : builder_(&builder),
      plan_(std::move(plan)),
      depth_(depth),
      control_(control),
      lookahead_(static_cast<std::size_t>(std::max(0, lookahead))),
      superbatch_(static_cast<std::size_t>(std::max(1, superbatch))),
      first_step_(first_step),
      next_sample_(first_step),
      next_sync_(first_step),
      taken_(first_step),
      limit_(plan_.size()),
      queue_(depth > 0 ? depth : 1) {
  if (sample_workers > 1) {
    // One thread per sampler (a batch on each, as SALIENT++'s workers run), the producer's team
    // on the cores left beside them and the training thread: OpenMP teams holding more threads
    // than the cores spin against each other at the end of every parallel region.
    producer_threads_ = std::max(1, core::num_threads() - sample_workers - (depth > 0 ? 1 : 0));
    samplers_ = std::make_unique<core::ThreadPool>(sample_workers);
  }
  if (depth_ > 0) producer_ = std::thread([this] { produce(); });
}

BatchPipeline::~BatchPipeline() {
  queue_.close();
  if (producer_.joinable()) producer_.join();
}

void BatchPipeline::sample_ahead(std::size_t ahead) {
  while (next_sample_ < plan_.size() && sampled_.size() <= ahead) {
    const StepPlan* step = &plan_[next_sample_++];
    const auto sample = [this, step] {
      return std::make_shared<PreparedBatch>(builder_->sample(step->seeds, step->sample_seed, step->dropped_pairs));
    };
    if (samplers_) {
      sampled_.push_back(samplers_
                             ->submit([sample] {
                               core::set_num_threads(1);
                               return sample();
                             })
                             .share());
    } else {
      std::promise<std::shared_ptr<PreparedBatch>> done;
      done.set_value(sample());
      sampled_.push_back(done.get_future().share());
    }
  }
}

PreparedBatch BatchPipeline::prepare_grouped(std::size_t index) {
  if (grouped_.empty()) {  // the group's first step: fetch the group
    const std::size_t group = std::min(superbatch_, plan_.size() - index);
    sample_ahead(group - 1 + (samplers_ ? samplers_->size() : 0));
    std::vector<PreparedBatch> batches;
    for (std::size_t k = 0; k < group; ++k) {
      batches.push_back(std::move(*sampled_.front().get()));
      sampled_.pop_front();
    }
    builder_->fetch_group(batches);
    for (PreparedBatch& b : batches) grouped_.push_back(std::move(b));
  }
  PreparedBatch batch = std::move(grouped_.front());
  grouped_.pop_front();
  builder_->finish_grouped(batch);
  return batch;
}

PreparedBatch BatchPipeline::prepare(std::size_t index) {
  if (superbatch_ > 1) return prepare_grouped(index);
  // Sampled ahead: the lookahead's batches, or one per sampling thread.
  sample_ahead(std::max(lookahead_, samplers_ ? static_cast<std::size_t>(samplers_->size()) : 0));
  PreparedBatch batch = std::move(*sampled_.front().get());
  sampled_.pop_front();
  // The prefetch buffer sees the input ids of the `lookahead_` batches after this one.
  std::vector<std::span<const std::int64_t>> upcoming;
  for (std::size_t k = 0; k < std::min(lookahead_, sampled_.size()); ++k)
    upcoming.emplace_back(sampled_[k].get()->sampled.input_nodes);
  builder_->fetch(batch, upcoming);
  if (control_ != nullptr) control_->after_batch(batch.fetch, static_cast<double>(index) / plan_.size());
  return batch;
}

void BatchPipeline::stop_early() {
  // A producer begins step i only after pushing i - 1, so on every rank it has begun at most
  // taken_ + depth_ steps; all ranks took the same number, so all prepare the same ones.
  limit_ = std::min(plan_.size(), taken_ + static_cast<std::size_t>(depth_) + 1);
  stopping_ = true;
  if (depth_ == 0) next_sync_ = plan_.size();
}

void BatchPipeline::produce() {
  try {
    if (samplers_) core::set_num_threads(producer_threads_);
    // After close(): without stop_early() (an error), stop at once; with it, go on to the limit.
    for (std::size_t i = first_step_; i < limit_; ++i)
      if (!queue_.push(prepare(i)) && !stopping_) return;
  } catch (...) {
    error_ = std::current_exception();
  }
  queue_.close();
}

bool BatchPipeline::next(PreparedBatch& out, double& wait_seconds) {
  core::Timer timer;
  out = PreparedBatch();  // the caller is done with the last batch: its memory goes before the next is made
  if (depth_ == 0) {
    if (next_sync_ >= plan_.size()) return false;
    out = prepare(next_sync_++);
    out.wait_for_copies();
    ++taken_;
    wait_seconds = timer.seconds();
    return true;
  }
  const bool got = queue_.pop(out);
  if (got) out.wait_for_copies();
  wait_seconds = timer.seconds();
  if (!got && error_) std::rethrow_exception(error_);
  taken_ += got ? 1 : 0;
  return got;
}

}  // namespace loom::loader
