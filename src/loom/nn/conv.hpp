// Graph convolution layers over a MessageGraph (a sampled block or a whole graph's CSR): each maps
// source features x [num_src, in] to destination features [num_dst, out]; destination i's own
// input row is x[i] (destinations are the first sources). Aggregation runs through the ops of
// aggregate.hpp / gat_aggregate.hpp, so every layer serves mini-batch and full-graph training.
//   SageConv: lin_l(mean_{j->i} x[j]) + lin_r(x[i])          (GraphSAGE, mean, root weight)
//   GcnConv:  W * gcn_aggregate(x) + b                        (Kipf & Welling, self-loops)
//   GatConv:  multi-head attention (Velickovic et al.), self-loops, LeakyReLU 0.2; heads are
//             concatenated ([num_dst, heads*out]) or averaged ([num_dst, out]); in training, the
//             attention coefficients drop out with probability attention_dropout.
// x may be a sparse CSR matrix (torch::kSparseCsr: a first layer's bag-of-words rows): the layer
// then multiplies it by its weights first (sparse_linear.hpp) and aggregates the products.
// Linear maps commute with the (linear) SAGE and GCN aggregations, so those layers transform
// before or after aggregating, whichever costs fewer flops for the graph at hand.
#pragma once

#include <cstdint>

#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>

#include "loom/nn/message_graph.hpp"

namespace loom::nn {

class Conv : public torch::nn::Module {
 public:
  virtual torch::Tensor forward(const MessageGraph& graph, const torch::Tensor& x) = 0;
  virtual std::int64_t out_features() const = 0;
};

class SageConv : public Conv {
 public:
  SageConv(std::int64_t in, std::int64_t out);
  torch::Tensor forward(const MessageGraph& graph, const torch::Tensor& x) override;
  std::int64_t out_features() const override { return out_; }

 private:
  std::int64_t in_, out_;
  torch::Tensor weight_l_, bias_, weight_r_;  // [out, in], [out], [out, in]
};

class GcnConv : public Conv {
 public:
  GcnConv(std::int64_t in, std::int64_t out);
  torch::Tensor forward(const MessageGraph& graph, const torch::Tensor& x) override;
  std::int64_t out_features() const override { return out_; }

 private:
  std::int64_t in_, out_;
  torch::Tensor weight_, bias_;  // [out, in], [out]
};

class GatConv : public Conv {
 public:
  // out: width per head; concat: concatenate heads (else average them).
  GatConv(std::int64_t in, std::int64_t out, std::int64_t heads, bool concat, double attention_dropout = 0,
          double negative_slope = 0.2);
  torch::Tensor forward(const MessageGraph& graph, const torch::Tensor& x) override;
  std::int64_t out_features() const override { return concat_ ? heads_ * out_ : out_; }

 private:
  std::int64_t in_, out_, heads_;
  bool concat_;
  double attention_dropout_, negative_slope_;
  torch::Tensor weight_, att_src_, att_dst_, bias_;  // [heads*out, in], [heads, out] x2, [out_features]
};

}  // namespace loom::nn
