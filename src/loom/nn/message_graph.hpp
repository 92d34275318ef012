// MessageGraph: the input of every aggregation op and layer in nn/, as tensors. It has num_src
// source and num_dst destination nodes, where the destinations are the first num_dst sources
// (a sampled Block, or a whole graph with num_dst == num_src), and its edges as a CSR over the
// destinations: indptr [num_dst+1] int64, indices [E] int32 or int64 local source ids.
// Copies share one lazily built cache (thread-safe, built at most once): the transposed CSR that
// backward passes gather through, and the GCN normalisation 1/sqrt(degree) of both sides (block
// degrees with one self-loop per destination, unless explicit norms are given: the whole graph's
// degrees, for exact inference and for sampled training that computes the GCN it infers with).
// CPU kernels need CPU tensors; to(device) moves them.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include <torch/types.h>

#include "loom/graph/csr.hpp"
#include "loom/sample/block.hpp"

namespace loom::nn {

// The CSR by source: for source j, its edges t_indptr[j] .. t_indptr[j+1], each with its
// destination (t_dst, dtype of the indices) and its position in the forward CSR (t_edge, int64).
struct TransposedCsr {
  torch::Tensor t_indptr, t_dst, t_edge;
};

struct GcnNorm {
  torch::Tensor src, dst;  // float32 [num_src], [num_dst]: 1/sqrt(degree including the self-loop)
  // float32 [num_dst], or undefined (= 1): the weight of a destination's neighbour sum. A block
  // that sampled k of a node's d neighbours weighs their sum by d / k, so that it estimates the
  // whole neighbourhood's sum without bias (and equals it when every neighbour was taken).
  torch::Tensor neighbor_scale;
};

class MessageGraph {
 public:
  MessageGraph() = default;
  // Validates dtypes, shapes, devices and (on CPU) the values; throws loom::Error.
  MessageGraph(torch::Tensor indptr, torch::Tensor indices, std::int64_t num_src);

  // Copies a sampled block into CPU tensors (in pinned memory with `pinned`, for a graph bound for
  // a GPU; needs a CUDA LibTorch).
  static MessageGraph from_block(const sample::Block& block, bool pinned = false);
  // A whole square graph (num_dst = num_src = rows). Views the Csr's memory without copying:
  // the Csr must outlive the graph and every copy of it.
  static MessageGraph from_csr(const graph::Csr& csr);

  // The same graph with explicit GCN norms instead of the block degrees.
  MessageGraph with_gcn_norm(GcnNorm norm) const;
  // Tensors in pinned memory are copied without blocking the host (on the current stream).
  MessageGraph to(torch::Device device) const;

  std::int64_t num_src() const { return num_src_; }
  std::int64_t num_dst() const { return num_dst_; }
  std::int64_t num_edges() const { return indices_.defined() ? indices_.size(0) : 0; }
  const torch::Tensor& indptr() const { return indptr_; }
  const torch::Tensor& indices() const { return indices_; }
  torch::Device device() const { return indptr_.device(); }
  // The tensors it holds (indptr, indices and explicit GCN norms; not the lazy cache), for code
  // that tracks device memory or transfers.
  std::vector<torch::Tensor> tensors() const;

  const TransposedCsr& transposed() const;
  const GcnNorm& gcn_norm() const;
  // The destination of each edge (int64 [E]), for device-generic (index_add) code paths.
  const torch::Tensor& edge_dst() const;

 private:
  struct Cache;
  torch::Tensor indptr_, indices_;
  std::int64_t num_src_ = 0, num_dst_ = 0;
  std::shared_ptr<Cache> cache_;                  // shared by copies with the same topology
  std::shared_ptr<const GcnNorm> explicit_norm_;  // set by with_gcn_norm
};

namespace detail {
// The transposed CSR of (indptr, indices): by a counting sort on CPU tensors, and by a stable
// sort of the edges by source in torch ops on any device (what a GPU graph uses). Both give the
// same tensors: within a source, edges in forward-CSR order.
TransposedCsr transpose_by_counting(const torch::Tensor& indptr, const torch::Tensor& indices, std::int64_t num_src);
TransposedCsr transpose_by_sort(const torch::Tensor& indptr, const torch::Tensor& indices,
                                const torch::Tensor& edge_dst, std::int64_t num_src);
}  // namespace detail

// GCN norms from a whole graph's degrees (+1 for the self-loop) for the nodes `src_nodes` and
// `dst_nodes` (global ids): exact full-graph normalisation for a block of that graph.
GcnNorm global_gcn_norm(const graph::Csr& csr, std::span<const std::int64_t> src_nodes,
                        std::span<const std::int64_t> dst_nodes);

// The whole graph's GCN norms for a block sampled from `csr`, whose local source ids name the
// global ids `src_nodes` (destinations first): global_gcn_norm, and the neighbour scale
// degree / sampled neighbours of each destination (undefined when the block took them all).
GcnNorm sampled_gcn_norm(const graph::Csr& csr, const sample::Block& block, std::span<const std::int64_t> src_nodes);

}  // namespace loom::nn
