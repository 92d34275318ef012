// Pipeline thread counts: a stage that computes while the other ranks of its machine wait
// (pipeline fill and drain, exact evaluation) takes their cores; otherwise it keeps its share.
#include <gtest/gtest.h>

#include "loom/train/fullgraph/pipeline_threads.hpp"

namespace loom::train {
namespace {

TEST(PipelineThreads, AStageAloneOnItsMachineTakesTheIdleCores) {
  // 4 stages x 1 way, 4 chunks, all on one 2-core machine, 1 thread each.
  const auto layout = [](int rank) { return make_layout(FullGraphMode::kPipe, 4, rank, 4, 0, 0, 8); };
  const std::vector<int> one_machine = {0, 0, 0, 0};
  const PipelineThreads first(layout(0), one_machine, 0, 2, 1, false);
  EXPECT_EQ(first.forward(0), 2);  // fill: stage 0 alone
  EXPECT_EQ(first.forward(1), 1);  // stages 0 and 1
  EXPECT_EQ(first.forward(3), 1);
  EXPECT_EQ(first.backward(3), 2);  // drain: stage 0 alone at the last backward step
  EXPECT_EQ(first.backward(0), 1);  // backward step 3: all four stages busy
  const PipelineThreads last(layout(3), one_machine, 3, 2, 1, false);
  EXPECT_EQ(last.forward(0), 1);    // step 3: every stage busy
  EXPECT_EQ(last.forward(3), 2);    // step 6: the last stage alone
  EXPECT_EQ(last.backward(0), 2);   // it starts the backward alone
  EXPECT_EQ(last.evaluation(), 2);  // stages evaluate one after another
  // Fixed thread counts, and ranks on machines of their own, keep the base.
  EXPECT_EQ(PipelineThreads(layout(0), one_machine, 0, 2, 1, true).forward(0), 1);
  EXPECT_EQ(PipelineThreads(layout(0), {0, 1, 2, 3}, 0, 2, 2, false).forward(1), 2);
}

TEST(PipelineThreads, WaysOfABusyStageShareTheMachine) {
  // 2 stages x 2 ways, 2 chunks per way, on one 2-core machine: every step has 2 busy ranks.
  const auto layout = make_layout(FullGraphMode::kHybrid, 4, 0, 4, 2, 0, 8);
  const PipelineThreads t(layout, {0, 0, 0, 0}, 0, 2, 1, false);
  EXPECT_EQ(t.forward(0), 1);
  EXPECT_EQ(t.backward(1), 1);
  EXPECT_EQ(t.evaluation(), 1);
}

}  // namespace
}  // namespace loom::train
