#include "loom/nn/conv.hpp"

#include <cmath>

#include <torch/nn/init.h>
#include <torch/torch.h>

#include "loom/core/error.hpp"
#include "loom/nn/aggregate.hpp"
#include "loom/nn/gat_aggregate.hpp"
#include "loom/nn/sparse_linear.hpp"
#include "loom/nn/tensor_util.hpp"

namespace loom::nn {

namespace {

void check_input(const MessageGraph& graph, const torch::Tensor& x, std::int64_t in, const char* layer) {
  LOOM_CHECK_ARG(x.dim() == 2 && x.size(0) == graph.num_src() && x.size(1) == in, "x",
                 "{} wants [{} sources, {} features], got {}", layer, graph.num_src(), in, detail::shape_string(x));
}

// True when aggregating the `in`-wide input first is cheaper than transforming first.
bool aggregate_first(const MessageGraph& graph, std::int64_t in, std::int64_t out) {
  const double e = static_cast<double>(graph.num_edges());
  const double agg_first = e * in + static_cast<double>(graph.num_dst()) * in * out;
  const double transform_first = static_cast<double>(graph.num_src()) * in * out + e * out;
  return agg_first <= transform_first;
}

torch::Tensor kaiming_uniform(std::int64_t out, std::int64_t in) {
  auto w = torch::empty({out, in});
  torch::nn::init::kaiming_uniform_(w, std::sqrt(5.0));  // torch::nn::Linear's default
  return w;
}

torch::Tensor glorot(std::vector<std::int64_t> shape, std::int64_t fan_in, std::int64_t fan_out) {
  const double bound = std::sqrt(6.0 / static_cast<double>(fan_in + fan_out));
  return torch::empty(shape).uniform_(-bound, bound);
}

}  // namespace

SageConv::SageConv(std::int64_t in, std::int64_t out) : in_(in), out_(out) {
  LOOM_CHECK_ARG(in > 0 && out > 0, "features", "SageConv needs positive widths, got {} -> {}", in, out);
  weight_l_ = register_parameter("weight_l", kaiming_uniform(out, in));
  const double bound = 1.0 / std::sqrt(static_cast<double>(in));
  bias_ = register_parameter("bias", torch::empty({out}).uniform_(-bound, bound));
  weight_r_ = register_parameter("weight_r", kaiming_uniform(out, in));
}

torch::Tensor SageConv::forward(const MessageGraph& graph, const torch::Tensor& x) {
  check_input(graph, x, in_, "SageConv");
  if (x.layout() == torch::kSparseCsr) {
    const torch::Tensor neigh = aggregate(graph, sparse_linear(x, weight_l_, graph.num_src()), Aggregation::kMean);
    return neigh + sparse_linear(x, weight_r_, graph.num_dst()) + bias_;
  }
  const auto x_dst = x.slice(0, 0, graph.num_dst());
  torch::Tensor neigh;
  if (aggregate_first(graph, in_, out_)) {
    neigh = torch::addmm(bias_, aggregate(graph, x, Aggregation::kMean), weight_l_.t());
  } else {
    neigh = aggregate(graph, torch::mm(x, weight_l_.t()), Aggregation::kMean) + bias_;
  }
  return torch::addmm(neigh, x_dst, weight_r_.t());
}

GcnConv::GcnConv(std::int64_t in, std::int64_t out) : in_(in), out_(out) {
  LOOM_CHECK_ARG(in > 0 && out > 0, "features", "GcnConv needs positive widths, got {} -> {}", in, out);
  weight_ = register_parameter("weight", glorot({out, in}, in, out));
  bias_ = register_parameter("bias", torch::zeros({out}));
}

torch::Tensor GcnConv::forward(const MessageGraph& graph, const torch::Tensor& x) {
  check_input(graph, x, in_, "GcnConv");
  if (x.layout() == torch::kSparseCsr)
    return aggregate(graph, sparse_linear(x, weight_, graph.num_src()), Aggregation::kGcn) + bias_;
  if (aggregate_first(graph, in_, out_)) {
    return torch::addmm(bias_, aggregate(graph, x, Aggregation::kGcn), weight_.t());
  }
  return aggregate(graph, torch::mm(x, weight_.t()), Aggregation::kGcn) + bias_;
}

GatConv::GatConv(std::int64_t in, std::int64_t out, std::int64_t heads, bool concat, double attention_dropout,
                 double negative_slope)
    : in_(in),
      out_(out),
      heads_(heads),
      concat_(concat),
      attention_dropout_(attention_dropout),
      negative_slope_(negative_slope) {
  LOOM_CHECK_ARG(in > 0 && out > 0 && heads > 0, "features",
                 "GatConv needs positive widths and heads, got {} -> {} x {}", in, out, heads);
  weight_ = register_parameter("weight", glorot({heads * out, in}, in, heads * out));
  att_src_ = register_parameter("att_src", glorot({heads, out}, heads, out));
  att_dst_ = register_parameter("att_dst", glorot({heads, out}, heads, out));
  bias_ = register_parameter("bias", torch::zeros({out_features()}));
}

torch::Tensor GatConv::forward(const MessageGraph& graph, const torch::Tensor& x) {
  check_input(graph, x, in_, "GatConv");
  const auto h =
      (x.layout() == torch::kSparseCsr ? sparse_linear(x, weight_, graph.num_src()) : torch::mm(x, weight_.t()))
          .view({graph.num_src(), heads_, out_});
  const auto a_src = (h * att_src_).sum(-1);
  const auto a_dst = (h.slice(0, 0, graph.num_dst()) * att_dst_).sum(-1);
  const auto out =
      gat_aggregate(graph, h, a_src, a_dst, negative_slope_, /*self_loops=*/true, attention_dropout_, is_training());
  if (concat_) return out.reshape({graph.num_dst(), heads_ * out_}) + bias_;
  return out.mean(1) + bias_;
}

}  // namespace loom::nn
