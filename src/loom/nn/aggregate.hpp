// Neighbour aggregation over a MessageGraph, as autograd ops with hand-written forward and
// backward CSR kernels on CPU (parallel over destination rows; the backward scatter runs as a
// gather over the transposed CSR, so there are no races and no atomics). Other devices take a
// device-generic path of plain torch ops (index_select/index_add_) with the same semantics.
//   kSum:  out[i] = sum_{j -> i} x[j]
//   kMean: out[i] = mean_{j -> i} x[j]            (0 for a destination without edges)
//   kGcn:  out[i] = n_d[i] * (c[i] * sum_{j -> i} n_s[j] x[j] + n_s[i] x[i])   (GCN with
//          self-loops; n_s, n_d, c = graph.gcn_norm(): 1/sqrt(degree + self-loop), and the
//          neighbour scale of a sampled block, 1 where it is undefined)
// x: [num_src, F] float32 or float64; returns [num_dst, F]. Throws loom::Error on bad shapes.
#pragma once

#include <torch/types.h>

#include "loom/nn/message_graph.hpp"

namespace loom::nn {

enum class Aggregation { kSum, kMean, kGcn };

torch::Tensor aggregate(const MessageGraph& graph, const torch::Tensor& x, Aggregation kind);

namespace detail {
// The device-generic path (what non-CPU tensors use); on CPU too when called directly.
torch::Tensor aggregate_generic(const MessageGraph& graph, const torch::Tensor& x, Aggregation kind);
}  // namespace detail

}  // namespace loom::nn
