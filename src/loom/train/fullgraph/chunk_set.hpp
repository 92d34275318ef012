// ChunkSet: the chunks one rank of full-graph training computes (its way's parts, see
// fullgraph_layout.hpp) and the row space ("slots") of its per-layer buffers. Slots
// 0 .. own.size()-1 are the way's own rows (global id own.begin + slot); the slots after them
// are the mirrors: rows of other ways that some own chunk reads, sorted by global id.
// Each chunk's MessageGraph has the chunk's rows as destinations and, as sources, those rows
// followed by its `outside` neighbours (same-way rows of other chunks, then mirrors, in edge
// order); GCN normalisation uses the whole graph's degrees, so chunked aggregation is exact
// when the outside rows are current.
#pragma once

#include <cstdint>
#include <vector>

#include <torch/types.h>

#include "loom/graph/csr.hpp"
#include "loom/nn/message_graph.hpp"
#include "loom/partition/partition_book.hpp"
#include "loom/train/fullgraph/fullgraph_layout.hpp"

namespace loom::train {

struct Chunk {
  int index = 0;                         // chunk number within the way
  partition::IdRange rows;               // global ids
  std::int64_t slot_begin = 0;           // slot of rows.begin
  nn::MessageGraph graph;                // destinations = rows, sources = rows ++ outside
  std::vector<std::int64_t> outside;     // global ids of the outside sources, in source order
  torch::Tensor outside_slots;           // int64 [outside.size()]
  torch::Tensor local_pos, local_slots;  // the outside sources of this way: positions, slots
  std::int64_t size() const { return rows.size(); }
};

class ChunkSet {
 public:
  ChunkSet(const graph::Csr& csr, const partition::PartitionBook& book, const FullGraphLayout& layout);

  partition::IdRange own() const { return own_; }
  std::int64_t num_slots() const { return own_.size() + static_cast<std::int64_t>(mirrors_.size()); }
  const std::vector<std::int64_t>& mirrors() const { return mirrors_; }
  const std::vector<Chunk>& chunks() const { return chunks_; }
  const Chunk& chunk(int c) const { return chunks_[static_cast<std::size_t>(c)]; }
  // Slot of a global id this rank reads (own row or mirror); throws loom::Error otherwise.
  std::int64_t slot(std::int64_t global) const;
  // Moves every chunk's graph and index tensors to `device`.
  void to(torch::Device device);

 private:
  partition::IdRange own_;
  std::vector<std::int64_t> mirrors_;
  std::vector<Chunk> chunks_;
};

}  // namespace loom::train
