// Multi-head attention aggregation of GAT (edge softmax fused with the weighted sum), as an
// autograd op with hand-written forward and backward CPU kernels (backward covers the features
// and both attention-score inputs; the scatter to sources is a gather over the transposed CSR).
// For destination i, head h, over its in-edges j -> i (plus the self-loop i -> i when
// self_loops): e_ij = leaky_relu(a_src[j,h] + a_dst[i,h], negative_slope),
// alpha_ij = softmax_j(e_ij), out[i,h,:] = sum_j alpha_ij x[j,h,:]. A destination with no edge
// (and no self-loop) gets 0. x: [num_src, H, F], a_src: [num_src, H], a_dst: [num_dst, H], float32
// or float64; returns [num_dst, H, F]. Non-CPU tensors take a device-generic torch-ops path.
#pragma once

#include <torch/types.h>

#include "loom/nn/message_graph.hpp"

namespace loom::nn {

torch::Tensor gat_aggregate(const MessageGraph& graph, const torch::Tensor& x, const torch::Tensor& a_src,
                            const torch::Tensor& a_dst, double negative_slope, bool self_loops);

namespace detail {
torch::Tensor gat_aggregate_generic(const MessageGraph& graph, const torch::Tensor& x, const torch::Tensor& a_src,
                                    const torch::Tensor& a_dst, double negative_slope, bool self_loops);
}  // namespace detail

}  // namespace loom::nn
