#include "loom/train/fullgraph/pipeline_threads.hpp"

#include <algorithm>

namespace loom::train {

PipelineThreads::PipelineThreads(const FullGraphLayout& layout, std::vector<int> machine_of_ranks, int rank, int cores,
                                 int base, bool fixed)
    : layout_(layout),
      machine_(std::move(machine_of_ranks)),
      mine_(machine_[static_cast<std::size_t>(rank)]),
      cores_(cores),
      base_(std::max(1, base)),
      fixed_(fixed) {}

int PipelineThreads::share(int busy_ranks_here) const { return std::max(base_, cores_ / std::max(1, busy_ranks_here)); }

int PipelineThreads::at(int step, bool backward) const {
  if (fixed_) return base_;
  int busy = 0;
  for (int s = 0; s < layout_.stages; ++s) {
    const int first = backward ? layout_.stages - 1 - s : s;  // the step of the stage's first chunk
    if (step < first || step >= first + layout_.chunks) continue;
    for (int w = 0; w < layout_.ways; ++w) busy += machine_[static_cast<std::size_t>(layout_.rank_of(s, w))] == mine_;
  }
  return share(busy);
}

int PipelineThreads::evaluation() const {
  if (fixed_) return base_;
  int busy = 0;
  for (int w = 0; w < layout_.ways; ++w)
    busy += machine_[static_cast<std::size_t>(layout_.rank_of(layout_.stage, w))] == mine_;
  return share(busy);
}

}  // namespace loom::train
