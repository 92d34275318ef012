#include "loom/train/batch_pipeline.hpp"

#include "loom/core/timer.hpp"

namespace loom::train {

BatchPipeline::BatchPipeline(const BatchBuilder& builder, std::vector<StepPlan> plan, int depth,
                             PrefetchControl* control, int lookahead)
    : builder_(&builder),
      plan_(std::move(plan)),
      depth_(depth),
      control_(control),
      lookahead_(static_cast<std::size_t>(std::max(0, lookahead))),
      queue_(depth > 0 ? depth : 1) {
  if (depth_ > 0) producer_ = std::thread([this] { produce(); });
}

BatchPipeline::~BatchPipeline() {
  queue_.close();
  if (producer_.joinable()) producer_.join();
}

PreparedBatch BatchPipeline::prepare(std::size_t index) {
  while (next_sample_ < plan_.size() && sampled_.size() <= lookahead_) {
    const auto& step = plan_[next_sample_++];
    sampled_.push_back(builder_->sample(step.seeds, step.sample_seed));
  }
  PreparedBatch batch = std::move(sampled_.front());
  sampled_.pop_front();
  std::vector<std::span<const std::int64_t>> upcoming;
  for (const auto& later : sampled_) upcoming.emplace_back(later.sampled.input_nodes);
  builder_->fetch(batch, upcoming);
  if (control_ != nullptr) control_->after_batch(batch.fetch, static_cast<double>(index) / plan_.size());
  return batch;
}

void BatchPipeline::produce() {
  try {
    for (std::size_t i = 0; i < plan_.size(); ++i)
      if (!queue_.push(prepare(i))) return;
  } catch (...) {
    error_ = std::current_exception();
  }
  queue_.close();
}

bool BatchPipeline::next(PreparedBatch& out, double& wait_seconds) {
  core::Timer timer;
  if (depth_ == 0) {
    if (next_sync_ >= plan_.size()) return false;
    out = prepare(next_sync_++);
    wait_seconds = timer.seconds();
    return true;
  }
  const bool got = queue_.pop(out);
  wait_seconds = timer.seconds();
  if (!got && error_) std::rethrow_exception(error_);
  return got;
}

}  // namespace loom::train
