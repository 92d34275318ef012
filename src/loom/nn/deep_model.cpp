#include "loom/nn/deep_model.hpp"

#include <cmath>

#include <torch/torch.h>

#include "loom/core/error.hpp"
#include "loom/nn/aggregate.hpp"
#include "loom/nn/conv.hpp"
#include "loom/nn/relu_dropout.hpp"
#include "loom/nn/sparse_linear.hpp"

namespace loom::nn {

namespace {

// Glorot (Xavier) uniform initialisation of a [out, in] weight.
torch::Tensor linear_weight(std::int64_t out, std::int64_t in) {
  return torch::nn::init::xavier_uniform_(torch::empty({out, in}));
}

}  // namespace

// One hidden-to-hidden block; `l` is its 0-based depth.
class DeepBlock : public torch::nn::Module {
 public:
  DeepBlock(const DeepModelOptions& o, int l) : o_(o) {
    switch (o.kind) {
      case DeepKind::kGcn:
      case DeepKind::kResGcn: conv_ = register_module("conv", std::make_shared<GcnConv>(o.hidden, o.hidden)); break;
      case DeepKind::kSage: conv_ = register_module("conv", std::make_shared<SageConv>(o.hidden, o.hidden)); break;
      case DeepKind::kGcnii:
        weight_ = register_parameter("weight", linear_weight(o.hidden, o.hidden));
        beta_ = std::log(o.lambda / (l + 1) + 1);
        break;
    }
    if (o.kind == DeepKind::kResGcn) {
      norm_weight_ = register_parameter("norm_weight", torch::ones({o.hidden}));
      norm_bias_ = register_parameter("norm_bias", torch::zeros({o.hidden}));
    }
  }

  torch::Tensor forward(const MessageGraph& graph, const torch::Tensor& x, const torch::Tensor& h0) {
    const bool train = is_training();
    switch (o_.kind) {
      case DeepKind::kGcn:
      case DeepKind::kSage: return torch::relu(conv_->forward(graph, nn::dropout(x, o_.dropout, train)));
      case DeepKind::kGcnii: {
        LOOM_CHECK_ARG(h0.defined() && h0.size(0) == graph.num_dst(), "h0", "gcnii needs h0 for {} destinations",
                       graph.num_dst());
        const auto support =
            (1 - o_.alpha) * aggregate(graph, nn::dropout(x, o_.dropout, train), Aggregation::kGcn) + o_.alpha * h0;
        return torch::relu((1 - beta_) * support + beta_ * torch::mm(support, weight_.t()));
      }
      case DeepKind::kResGcn: {
        const auto h = relu_dropout(torch::layer_norm(x, {o_.hidden}, norm_weight_, norm_bias_), o_.dropout, train);
        return x.slice(0, 0, graph.num_dst()) + conv_->forward(graph, h);
      }
    }
    return {};
  }

 private:
  DeepModelOptions o_;
  std::shared_ptr<Conv> conv_;
  torch::Tensor weight_, norm_weight_, norm_bias_;
  double beta_ = 0;
};

void check_model_options(const DeepModelOptions& o) {
  LOOM_CHECK_ARG(o.num_layers >= 1, "--layers", "need at least one layer, got {}", o.num_layers);
  LOOM_CHECK_ARG(o.hidden > 0, "--hidden", "must be positive, got {}", o.hidden);
  LOOM_CHECK_ARG(o.dropout >= 0.0 && o.dropout < 1.0, "--dropout", "must be in [0, 1), got {}", o.dropout);
  LOOM_CHECK_ARG(o.alpha >= 0.0 && o.alpha <= 1.0, "--gcnii-alpha", "must be in [0, 1], got {}", o.alpha);
  LOOM_CHECK_ARG(o.lambda > 0.0, "--gcnii-lambda", "must be positive, got {}", o.lambda);
}

DeepGnn::DeepGnn(const DeepModelOptions& options) : options_(options) {
  const DeepModelOptions& o = options_;
  check_model_options(o);
  LOOM_CHECK_ARG(o.in_features > 0, "features", "the input has {} features", o.in_features);
  LOOM_CHECK_ARG(o.num_classes > 0, "classes", "need at least one output class, got {}", o.num_classes);
  w_in_ = register_parameter("w_in", linear_weight(o.hidden, o.in_features));
  b_in_ = register_parameter("b_in", torch::zeros({o.hidden}));
  for (int l = 0; l < o.num_layers; ++l)
    blocks_.push_back(register_module("block" + std::to_string(l), std::make_shared<DeepBlock>(o, l)));
  w_out_ = register_parameter("w_out", linear_weight(o.num_classes, o.hidden));
  b_out_ = register_parameter("b_out", torch::zeros({o.num_classes}));
}

torch::Tensor DeepGnn::input(const torch::Tensor& features) {
  if (features.layout() == torch::kSparseCsr) {
    const torch::Tensor x = sparse_rows_dropout(features, options_.dropout, is_training());
    return torch::relu(sparse_linear(x, w_in_, x.size(0)) + b_in_);
  }
  return torch::relu(torch::addmm(b_in_, nn::dropout(features, options_.dropout, is_training()), w_in_.t()));
}

torch::Tensor DeepGnn::layer(int l, const MessageGraph& graph, const torch::Tensor& x, const torch::Tensor& h0) {
  LOOM_CHECK_ARG(l >= 0 && l < num_layers(), "layer", "layer {} outside [0, {})", l, num_layers());
  return blocks_[static_cast<std::size_t>(l)]->forward(graph, x, h0);
}

torch::Tensor DeepGnn::output(const torch::Tensor& h) {
  return torch::addmm(b_out_, nn::dropout(h, options_.dropout, is_training()), w_out_.t());
}

std::vector<torch::Tensor> DeepGnn::input_parameters() const { return {w_in_, b_in_}; }
std::vector<torch::Tensor> DeepGnn::layer_parameters(int l) const {
  return blocks_[static_cast<std::size_t>(l)]->parameters();
}
std::vector<torch::Tensor> DeepGnn::output_parameters() const { return {w_out_, b_out_}; }

}  // namespace loom::nn
