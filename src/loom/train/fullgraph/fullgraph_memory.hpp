// The up-front memory plan of one rank of `loom fullgraph` (memory_plan.hpp has the plan's type
// and its checks), from the stage's layout.
#pragma once

#include <cstdint>
#include <vector>

#include "loom/train/memory_plan.hpp"

namespace loom::train {

// What one rank of `loom fullgraph` holds, from its layout (fullgraph_trainer.cpp fills it).
struct FullGraphMemoryInputs {
  std::int64_t runtime = 0;     // resident before the store was opened
  std::int64_t topology = 0;    // bytes of the mapped whole-graph CSR
  std::int64_t rows = 0;        // this rank's feature and label rows
  std::int64_t parameters = 0;  // parameters this rank trains
  std::int64_t hidden = 0;
  int layers = 0;                   // layers of this rank's stage
  std::int64_t slots = 0, own = 0;  // rows of its per-layer buffers: own rows + mirrors; own rows
  bool historical = false;          // one buffer per layer (pipe, hybrid, stale halo), else one
  std::vector<std::int64_t> chunk_rows, chunk_outside, chunk_edges;  // per chunk of its way
  std::int64_t chunk_graphs = 0;  // bytes of the chunks' CSRs and the transposed ones backward builds
  bool edge_messages = false;     // aggregation materialises per-edge messages (non-CPU devices)
};

// Model and Adam state; per layer the buffer of outside rows and the cross-chunk gradients; the
// chunks' graphs; the forward values every chunk keeps for backward (about one row per source and
// three and a half per destination of each layer: dropout, aggregation, mix, product, activation),
// and, where aggregation materialises them (device path), one layer's per-edge messages at a time.
MemoryPlan plan_fullgraph_memory(const FullGraphMemoryInputs& in);

}  // namespace loom::train
