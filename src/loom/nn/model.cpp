#include "loom/nn/model.hpp"

#include <torch/torch.h>

#include "loom/core/error.hpp"
#include "loom/nn/relu_dropout.hpp"
#include "loom/nn/sparse_linear.hpp"

namespace loom::nn {

std::int64_t gat_heads(const ModelOptions& o) { return o.heads > 0 ? o.heads : 4; }
std::int64_t gat_output_heads(const ModelOptions& o) { return o.output_heads > 0 ? o.output_heads : gat_heads(o); }

void check_model_options(const ModelOptions& o) {
  LOOM_CHECK_ARG(o.num_layers >= 1, "layers", "need at least one layer, got {}", o.num_layers);
  LOOM_CHECK_ARG(o.hidden > 0, "hidden", "must be positive, got {}", o.hidden);
  LOOM_CHECK_ARG(o.dropout >= 0.0 && o.dropout < 1.0, "dropout", "must be in [0, 1), got {}", o.dropout);
  LOOM_CHECK_ARG(o.input_dropout >= 0.0 && o.input_dropout < 1.0, "--input-dropout", "must be in [0, 1), got {}",
                 o.input_dropout);
  const bool gat = o.kind == ModelKind::kGat;
  const std::string not_gat = fmt::format("applies to --model gat only, not {}", model_kind_name(o.kind));
  LOOM_CHECK_ARG(gat || o.heads == 0, "--heads", "{}", not_gat);
  LOOM_CHECK_ARG(gat || o.output_heads == 0, "--output-heads", "{}", not_gat);
  LOOM_CHECK_ARG(gat || o.attention_dropout == 0, "--attention-dropout", "{}", not_gat);
  LOOM_CHECK_ARG(gat || o.head_merge == HeadMerge::kConcat, "--head-merge", "{}", not_gat);
  LOOM_CHECK_ARG(o.heads >= 0 && o.output_heads >= 0, "--heads", "head counts must be positive");
  LOOM_CHECK_ARG(o.attention_dropout >= 0.0 && o.attention_dropout < 1.0, "--attention-dropout",
                 "must be in [0, 1), got {}", o.attention_dropout);
  if (gat && o.head_merge == HeadMerge::kConcat) {
    LOOM_CHECK_ARG(o.hidden % gat_heads(o) == 0, "--heads", "hidden width {} is not a multiple of {} heads", o.hidden,
                   gat_heads(o));
  }
}

GnnModel::GnnModel(const ModelOptions& options) : options_(options) {
  const ModelOptions& o = options_;
  check_model_options(o);
  LOOM_CHECK_ARG(o.in_features > 0, "features", "the input has {} features", o.in_features);
  LOOM_CHECK_ARG(o.num_classes > 0, "classes", "need at least one output class, got {}", o.num_classes);
  const std::int64_t heads = gat_heads(o);
  const bool concat = o.head_merge == HeadMerge::kConcat;
  std::int64_t in = o.in_features;
  for (int l = 0; l < o.num_layers; ++l) {
    const bool last = l + 1 == o.num_layers;
    const std::int64_t out = last ? o.num_classes : o.hidden;
    std::shared_ptr<Conv> conv;
    switch (o.kind) {
      case ModelKind::kSage: conv = std::make_shared<SageConv>(in, out); break;
      case ModelKind::kGcn: conv = std::make_shared<GcnConv>(in, out); break;
      case ModelKind::kGat:
        if (last) {
          conv = std::make_shared<GatConv>(in, out, gat_output_heads(o), /*concat=*/false, o.attention_dropout);
        } else {
          conv = std::make_shared<GatConv>(in, concat ? out / heads : out, heads, concat, o.attention_dropout);
        }
        break;
    }
    layers_.push_back(register_module("conv" + std::to_string(l), conv));
    in = conv->out_features();
  }
}

torch::Tensor GnnModel::forward_layer(int layer, const MessageGraph& graph, const torch::Tensor& x) {
  LOOM_CHECK_ARG(layer >= 0 && layer < num_layers(), "layer", "layer {} outside [0, {})", layer, num_layers());
  const bool training = is_training();
  torch::Tensor input = x;
  if (layer == 0 && options_.input_dropout > 0) {
    input = x.layout() == torch::kSparseCsr ? sparse_rows_dropout(x, options_.input_dropout, training)
                                            : nn::dropout(x, options_.input_dropout, training);
  }
  torch::Tensor h = layers_[layer]->forward(graph, input);
  if (layer + 1 == num_layers()) return h;
  if (options_.activation == Activation::kRelu) return relu_dropout(h, options_.dropout, training);
  return nn::dropout(torch::elu(h), options_.dropout, training);
}

std::vector<torch::Tensor> GnnModel::layer_parameters(int layer) const {
  LOOM_CHECK_ARG(layer >= 0 && layer < num_layers(), "layer", "layer {} outside [0, {})", layer, num_layers());
  return layers_[layer]->parameters();
}

torch::Tensor GnnModel::forward(const torch::Tensor& x, const std::vector<MessageGraph>& blocks) {
  LOOM_CHECK_ARG(static_cast<int>(blocks.size()) == num_layers(), "blocks", "{} blocks for a {}-layer model",
                 blocks.size(), num_layers());
  torch::Tensor h = x;
  for (int l = 0; l < num_layers(); ++l) h = forward_layer(l, blocks[l], h);
  return h;
}

}  // namespace loom::nn
