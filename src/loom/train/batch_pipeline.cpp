#include "loom/train/batch_pipeline.hpp"

#include "loom/core/timer.hpp"

namespace loom::train {

BatchPipeline::BatchPipeline(const BatchBuilder& builder, std::vector<StepPlan> plan, int depth)
    : builder_(&builder), plan_(std::move(plan)), depth_(depth), queue_(depth > 0 ? depth : 1) {
  if (depth_ > 0) producer_ = std::thread([this] { produce(); });
}

BatchPipeline::~BatchPipeline() {
  queue_.close();
  if (producer_.joinable()) producer_.join();
}

void BatchPipeline::produce() {
  try {
    for (const auto& step : plan_)
      if (!queue_.push(builder_->build(step.seeds, step.sample_seed))) return;
  } catch (...) {
    error_ = std::current_exception();
  }
  queue_.close();
}

bool BatchPipeline::next(PreparedBatch& out, double& wait_seconds) {
  core::Timer timer;
  if (depth_ == 0) {
    if (next_sync_ >= plan_.size()) return false;
    const auto& step = plan_[next_sync_++];
    out = builder_->build(step.seeds, step.sample_seed);
    wait_seconds = timer.seconds();
    return true;
  }
  const bool got = queue_.pop(out);
  wait_seconds = timer.seconds();
  if (!got && error_) std::rethrow_exception(error_);
  return got;
}

}  // namespace loom::train
