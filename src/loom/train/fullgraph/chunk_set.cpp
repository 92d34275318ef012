#include "loom/train/fullgraph/chunk_set.hpp"

#include <algorithm>

#include "loom/core/error.hpp"
#include "loom/sample/neighbor_sampler.hpp"
#include "loom/train/fullgraph/index_tensor.hpp"

namespace loom::train {

ChunkSet::ChunkSet(const graph::Csr& csr, const partition::PartitionBook& book, const FullGraphLayout& layout) {
  own_ = {book.range(layout.part_of(layout.way, 0)).begin,
          book.range(layout.part_of(layout.way, layout.chunks - 1)).end};
  const auto one_hop = sample::NeighborSampler(csr, sample::Fanouts::all_neighbours(1));
  for (int c = 0; c < layout.chunks; ++c) {
    Chunk chunk;
    chunk.index = c;
    chunk.rows = book.range(layout.part_of(layout.way, c));
    chunk.slot_begin = chunk.rows.begin - own_.begin;
    std::vector<std::int64_t> dst(static_cast<std::size_t>(chunk.size()));
    for (std::int64_t i = 0; i < chunk.size(); ++i) dst[static_cast<std::size_t>(i)] = chunk.rows.begin + i;
    if (!dst.empty()) {
      const sample::SampledBatch block = one_hop.sample(dst, 0);
      chunk.graph = nn::MessageGraph::from_block(block.blocks.front())
                        .with_gcn_norm(nn::global_gcn_norm(csr, block.input_nodes, dst));
      chunk.outside.assign(block.input_nodes.begin() + chunk.size(), block.input_nodes.end());
    } else {
      chunk.graph = nn::MessageGraph(torch::zeros({1}, torch::kLong), torch::empty({0}, torch::kInt), 0);
    }
    for (std::int64_t id : chunk.outside)
      if (!own_.contains(id)) mirrors_.push_back(id);
    chunks_.push_back(std::move(chunk));
  }
  std::sort(mirrors_.begin(), mirrors_.end());
  mirrors_.erase(std::unique(mirrors_.begin(), mirrors_.end()), mirrors_.end());
  for (Chunk& chunk : chunks_) {
    std::vector<std::int64_t> all, pos, local;
    for (std::size_t i = 0; i < chunk.outside.size(); ++i) {
      all.push_back(slot(chunk.outside[i]));
      if (all.back() < own_.size()) {
        pos.push_back(static_cast<std::int64_t>(i));
        local.push_back(all.back());
      }
    }
    chunk.outside_slots = index_tensor(all);
    chunk.local_pos = index_tensor(pos);
    chunk.local_slots = index_tensor(local);
  }
}

std::int64_t ChunkSet::slot(std::int64_t global) const {
  if (own_.contains(global)) return global - own_.begin;
  const auto it = std::lower_bound(mirrors_.begin(), mirrors_.end(), global);
  LOOM_CHECK(it != mirrors_.end() && *it == global, "node {} is neither owned nor a mirror of this rank", global);
  return own_.size() + (it - mirrors_.begin());
}

void ChunkSet::to(torch::Device device) {
  for (Chunk& chunk : chunks_) {
    chunk.graph = chunk.graph.to(device);
    for (torch::Tensor* t : {&chunk.outside_slots, &chunk.local_pos, &chunk.local_slots})
      if (t->defined()) *t = t->to(device);
  }
}

}  // namespace loom::train
