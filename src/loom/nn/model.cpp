#include "loom/nn/model.hpp"

#include <torch/torch.h>

#include "loom/core/error.hpp"
#include "loom/nn/relu_dropout.hpp"

namespace loom::nn {

ModelKind parse_model_kind(const std::string& name) {
  if (name == "sage") return ModelKind::kSage;
  if (name == "gcn") return ModelKind::kGcn;
  if (name == "gat") return ModelKind::kGat;
  throw Error::in_argument("model", fmt::format("unknown model '{}' (want sage, gcn or gat)", name));
}

std::string model_kind_name(ModelKind kind) {
  switch (kind) {
    case ModelKind::kSage: return "sage";
    case ModelKind::kGcn: return "gcn";
    case ModelKind::kGat: return "gat";
  }
  return "unknown";
}

GnnModel::GnnModel(const ModelOptions& options) : options_(options) {
  const ModelOptions& o = options_;
  LOOM_CHECK_ARG(o.num_layers >= 1, "layers", "need at least one layer, got {}", o.num_layers);
  LOOM_CHECK_ARG(o.hidden > 0, "hidden", "must be positive, got {}", o.hidden);
  LOOM_CHECK_ARG(o.dropout >= 0.0 && o.dropout < 1.0, "dropout", "must be in [0, 1), got {}", o.dropout);
  LOOM_CHECK_ARG(o.in_features > 0, "features", "the input has {} features", o.in_features);
  LOOM_CHECK_ARG(o.num_classes > 0, "classes", "need at least one output class, got {}", o.num_classes);
  if (o.kind == ModelKind::kGat) {
    LOOM_CHECK_ARG(o.heads > 0 && o.hidden % o.heads == 0, "heads", "hidden width {} is not a multiple of {} heads",
                   o.hidden, o.heads);
  }
  std::int64_t in = o.in_features;
  for (int l = 0; l < o.num_layers; ++l) {
    const bool last = l + 1 == o.num_layers;
    const std::int64_t out = last ? o.num_classes : o.hidden;
    std::shared_ptr<Conv> conv;
    switch (o.kind) {
      case ModelKind::kSage: conv = std::make_shared<SageConv>(in, out); break;
      case ModelKind::kGcn: conv = std::make_shared<GcnConv>(in, out); break;
      case ModelKind::kGat:
        conv = last ? std::make_shared<GatConv>(in, out, o.heads, /*concat=*/false)
                    : std::make_shared<GatConv>(in, out / o.heads, o.heads, /*concat=*/true);
        break;
    }
    layers_.push_back(register_module("conv" + std::to_string(l), conv));
    in = conv->out_features();
  }
}

torch::Tensor GnnModel::forward_layer(int layer, const MessageGraph& graph, const torch::Tensor& x) {
  LOOM_CHECK_ARG(layer >= 0 && layer < num_layers(), "layer", "layer {} outside [0, {})", layer, num_layers());
  torch::Tensor h = layers_[layer]->forward(graph, x);
  if (layer + 1 < num_layers()) h = relu_dropout(h, options_.dropout, is_training());
  return h;
}

torch::Tensor GnnModel::forward(const torch::Tensor& x, const std::vector<MessageGraph>& blocks) {
  LOOM_CHECK_ARG(static_cast<int>(blocks.size()) == num_layers(), "blocks", "{} blocks for a {}-layer model",
                 blocks.size(), num_layers());
  torch::Tensor h = x;
  for (int l = 0; l < num_layers(); ++l) h = forward_layer(l, blocks[l], h);
  return h;
}

}  // namespace loom::nn
