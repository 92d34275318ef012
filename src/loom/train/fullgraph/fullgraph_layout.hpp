// How full-graph training places work on ranks. P ranks form `stages` pipeline stages of `ways`
// ranks each (rank = stage * ways + way). The graph's K parts are the work units: way w owns
// the `chunks` parts w*chunks .. (w+1)*chunks-1 (contiguous global id ranges after relabelling),
// and every stage processes all of its way's chunks for its own contiguous range of layers.
//   graph   stages 1, ways P, chunks 1   (K == P): graph parallelism, mirrors exchanged fresh
//   pipe    stages P, ways 1, chunks K   (K >= P): GNNPipe layer-wise model parallelism
//   hybrid  stages P/W, ways W, chunks K/W (K % W == 0, K/W >= P/W)
// make_layout() checks these and throws loom::Error naming the argument. balance_layers() splits
// layer costs into contiguous stage ranges minimising the most expensive stage (dynamic
// programming, O(stages * layers^2)).
#pragma once

#include <span>
#include <string>
#include <vector>

#include "loom/core/enum_names.hpp"

namespace loom::train {

enum class FullGraphMode { kGraph, kPipe, kHybrid };

inline constexpr core::EnumNames<FullGraphMode, 3> kFullGraphModeNames{
    {{"graph", FullGraphMode::kGraph}, {"pipe", FullGraphMode::kPipe}, {"hybrid", FullGraphMode::kHybrid}}};
inline std::string fullgraph_mode_name(FullGraphMode mode) { return core::enum_name(kFullGraphModeNames, mode); }

struct FullGraphLayout {
  FullGraphMode mode = FullGraphMode::kGraph;
  int stages = 1, ways = 1, chunks = 1;
  int stage = 0, way = 0;  // this rank's
  int rank_of(int stage_index, int way_index) const { return stage_index * ways + way_index; }
  int part_of(int way_index, int chunk) const { return way_index * chunks + chunk; }
  int way_of_part(int part) const { return part / chunks; }
  bool first_stage() const { return stage == 0; }
  bool last_stage() const { return stage + 1 == stages; }
};

// `ways_option` is --ways (hybrid only), `chunks_option` --chunks (0 = every part is a chunk).
FullGraphLayout make_layout(FullGraphMode mode, int world_size, int rank, int num_parts, int ways_option,
                            int chunks_option, int num_layers);

// bounds[s] .. bounds[s+1] are stage s's layers (bounds.size() == stages + 1). Needs
// 1 <= stages <= costs.size().
std::vector<int> balance_layers(std::span<const double> costs, int stages);

}  // namespace loom::train
