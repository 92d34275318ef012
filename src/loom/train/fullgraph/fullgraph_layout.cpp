#include "loom/train/fullgraph/fullgraph_layout.hpp"

#include <algorithm>
#include <limits>

#include "loom/core/error.hpp"

namespace loom::train {

FullGraphLayout make_layout(FullGraphMode mode, int world_size, int rank, int num_parts, int ways_option,
                            int chunks_option, int num_layers) {
  FullGraphLayout l;
  l.mode = mode;
  switch (mode) {
    case FullGraphMode::kGraph:
      LOOM_CHECK_ARG(num_parts == world_size, "PARTS",
                     "graph mode needs one part per rank: {} parts for {} ranks (repartition with -k {})", num_parts,
                     world_size, world_size);
      LOOM_CHECK_ARG(chunks_option <= 1, "--chunks", "graph mode has no chunks (got {})", chunks_option);
      l.ways = world_size;
      break;
    case FullGraphMode::kPipe: l.ways = 1; break;
    case FullGraphMode::kHybrid:
      LOOM_CHECK_ARG(ways_option >= 1 && world_size % ways_option == 0, "--ways",
                     "{} ranks cannot form stages of {} ranks", world_size, ways_option);
      l.ways = ways_option;
      break;
  }
  l.stages = world_size / l.ways;
  if (mode != FullGraphMode::kGraph) {
    LOOM_CHECK_ARG(num_parts % l.ways == 0, "PARTS", "{} parts cannot be split evenly among {} ways", num_parts,
                   l.ways);
    l.chunks = num_parts / l.ways;
    LOOM_CHECK_ARG(chunks_option == 0 || chunks_option == l.chunks, "--chunks",
                   "{} chunks per way asked for, but the store's {} parts give {} (partition with -k {})",
                   chunks_option, num_parts, l.chunks, chunks_option * l.ways);
    LOOM_CHECK_ARG(l.chunks >= l.stages, "--chunks",
                   "{} chunks per way for {} pipeline stages: need at least one chunk per stage", l.chunks, l.stages);
  }
  LOOM_CHECK_ARG(l.stages <= num_layers, "--layers", "{} pipeline stages for {} layers: need a layer per stage",
                 l.stages, num_layers);
  l.stage = rank / l.ways;
  l.way = rank % l.ways;
  return l;
}

std::vector<int> balance_layers(std::span<const double> costs, int stages) {
  const int n = static_cast<int>(costs.size());
  LOOM_CHECK(stages >= 1 && stages <= n, "balance_layers: {} stages for {} layers", stages, n);
  std::vector<double> prefix(n + 1, 0);
  for (int i = 0; i < n; ++i) prefix[i + 1] = prefix[i] + costs[i];
  constexpr double kInf = std::numeric_limits<double>::infinity();
  // best[s][i]: the smallest maximum stage cost placing the first i layers on s stages.
  std::vector<std::vector<double>> best(stages + 1, std::vector<double>(n + 1, kInf));
  std::vector<std::vector<int>> cut(stages + 1, std::vector<int>(n + 1, 0));
  best[0][0] = 0;
  for (int s = 1; s <= stages; ++s)
    for (int i = s; i <= n; ++i)
      for (int j = s - 1; j < i; ++j) {
        const double c = std::max(best[s - 1][j], prefix[i] - prefix[j]);
        if (c < best[s][i]) {
          best[s][i] = c;
          cut[s][i] = j;
        }
      }
  std::vector<int> bounds(stages + 1, n);
  for (int s = stages, i = n; s >= 1; --s) {
    bounds[s] = i;
    i = cut[s][i];
    bounds[s - 1] = i;
  }
  bounds[0] = 0;
  return bounds;
}

}  // namespace loom::train
