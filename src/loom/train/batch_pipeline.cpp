#include "loom/train/batch_pipeline.hpp"

#include "loom/core/timer.hpp"

namespace loom::train {

BatchPipeline::BatchPipeline(const BatchBuilder& builder, std::vector<StepPlan> plan, int depth,
                             PrefetchControl* control)
    : builder_(&builder), plan_(std::move(plan)), depth_(depth), control_(control), queue_(depth > 0 ? depth : 1) {
  if (depth_ > 0) producer_ = std::thread([this] { produce(); });
}

BatchPipeline::~BatchPipeline() {
  queue_.close();
  if (producer_.joinable()) producer_.join();
}

PreparedBatch BatchPipeline::prepare(std::size_t index) {
  const auto& step = plan_[index];
  PreparedBatch batch = builder_->build(step.seeds, step.sample_seed);
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
