// Neighbour aggregation over a MessageGraph, as an autograd op whose forward is a CSR product
// and whose backward is the same product over the transposed CSR (a gather, so there are no races
// and no atomics). On CPU the product is a hand-written kernel (parallel over destination rows);
// other devices run torch's sparse CSR x dense product (cuSPARSE on a GPU) with the scales as
// row-wise multiplications: the same semantics, and no [edges, features] message tensor.
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
// The device-generic path (torch's sparse product: what non-CPU tensors use); on CPU too when
// called directly.
torch::Tensor aggregate_generic(const MessageGraph& graph, const torch::Tensor& x, Aggregation kind);
}  // namespace detail

}  // namespace loom::nn
