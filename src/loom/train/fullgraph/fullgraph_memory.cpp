#include "loom/train/fullgraph/fullgraph_memory.hpp"

#include <algorithm>

namespace loom::train {

namespace {

constexpr std::int64_t kFloat = 4;

}  // namespace

MemoryPlan plan_fullgraph_memory(const FullGraphMemoryInputs& in) {
  const std::int64_t row = in.hidden * kFloat;
  std::int64_t saved = 0, widest_messages = 0;
  for (std::size_t c = 0; c < in.chunk_rows.size(); ++c) {
    saved += (2 * (in.chunk_rows[c] + in.chunk_outside[c]) + 7 * in.chunk_rows[c]) * row / 2;
    if (in.edge_messages) widest_messages = std::max(widest_messages, in.chunk_edges[c] * row);
  }
  MemoryPlan plan;
  plan.parts = {
      {"runtime", in.runtime, ""},
      {"topology", in.topology, "", Residence::kMappedShared},
      {"own rows", in.rows, ""},
      {"model and optimizer", in.parameters * kFloat * 5, "--hidden, --layers"},
      {"layer buffers", (in.historical ? in.layers : 1) * in.slots * row + in.layers * in.own * row,
       "--hidden, more ranks"},
      {"chunk graphs", in.chunk_graphs, "more ranks"},
      {"activations", in.layers * saved + widest_messages, "--hidden, more ranks (--mode pipe: more stages)"},
  };
  return plan;
}

}  // namespace loom::train
