// PipelineThreads: how many threads a pipeline stage computes with at each step of an epoch.
// While the pipeline fills and drains, fewer stages compute than there are ranks; where ranks
// share a machine's cores, the cores of the waiting ranks would stay idle. Stage s computes the
// chunk at position k of the epoch's order at forward step k + s, and the chunk at position k of
// the reverse order at backward step k + (stages - 1 - s); a stage is busy at the steps of its
// chunks. At each step a rank takes the machine's cores shared among the ranks on its machine
// that are busy then (all ways of a busy stage), and never fewer than `base`. Exact evaluation
// runs the stages one after another, so one stage's ranks share the machine's cores.
// Elastic only when the thread count was left to Loom; `fixed` keeps `base` throughout.
#pragma once

#include <vector>

#include "loom/train/fullgraph/fullgraph_layout.hpp"

namespace loom::train {

class PipelineThreads {
 public:
  // machine_of_ranks: Communicator::machine_of_ranks() of the world; cores: of this machine.
  PipelineThreads(const FullGraphLayout& layout, std::vector<int> machine_of_ranks, int rank, int cores, int base,
                  bool fixed);

  int forward(int position) const { return at(position + layout_.stage, /*backward=*/false); }
  int backward(int position) const { return at(position + layout_.stages - 1 - layout_.stage, /*backward=*/true); }
  int evaluation() const;
  int base() const { return base_; }
  bool elastic() const { return !fixed_; }

 private:
  int at(int step, bool backward) const;
  int share(int busy_ranks_here) const;

  FullGraphLayout layout_;
  std::vector<int> machine_;  // [world rank] -> machine
  int mine_, cores_, base_;
  bool fixed_;
};

}  // namespace loom::train
