// Multi-head attention aggregation of GAT (edge softmax fused with the weighted sum), as an
// autograd op with hand-written forward and backward CPU kernels (backward covers the features
// and both attention-score inputs; the scatter to sources is a gather over the transposed CSR).
// For destination i, head h, over its in-edges j -> i (plus the self-loop i -> i when
// self_loops): e_ij = leaky_relu(a_src[j,h] + a_dst[i,h], negative_slope),
// alpha_ij = softmax_j(e_ij), out[i,h,:] = sum_j alpha_ij x[j,h,:]. A destination with no edge
// (and no self-loop) gets 0. x: [num_src, H, F], a_src: [num_src, H], a_dst: [num_dst, H], float32
// or float64; returns [num_dst, H, F]. Non-CPU tensors take a device-generic torch-ops path.
// Attention dropout (GAT's "dropout on the normalised attention coefficients"): while training
// with p > 0, each alpha_ij (per head, self-loops included) is kept with probability 1 - p and
// scaled by 1 / (1 - p), drawn from torch's default generator.
#pragma once

#include <torch/types.h>

#include "loom/nn/message_graph.hpp"

namespace loom::nn {

torch::Tensor gat_aggregate(const MessageGraph& graph, const torch::Tensor& x, const torch::Tensor& a_src,
                            const torch::Tensor& a_dst, double negative_slope, bool self_loops,
                            double attention_dropout = 0, bool training = false);

namespace detail {
// keep, keep_self: the attention dropout's scale (0 or 1 / (1 - p)) per edge [E, H] and per
// self-loop [num_dst, H], or undefined for none.
torch::Tensor gat_aggregate_generic(const MessageGraph& graph, const torch::Tensor& x, const torch::Tensor& a_src,
                                    const torch::Tensor& a_dst, double negative_slope, bool self_loops,
                                    const torch::Tensor& keep = {}, const torch::Tensor& keep_self = {});
}  // namespace detail

}  // namespace loom::nn
