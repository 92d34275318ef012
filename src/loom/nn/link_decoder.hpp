// LinkDecoder: the score of a node pair from its two embeddings, as PyG's and OGB's link
// prediction examples decode: "dot" (the inner product, no weights) or "mlp" (OGB's
// LinkPredictor: Linear(d, d), ReLU, Linear(d, 1) on the element-wise product). Scores are
// logits: train them with binary cross-entropy.
#pragma once

#include <cstdint>
#include <string>

#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/types.h>

#include "loom/core/enum_names.hpp"

namespace loom::nn {

enum class LinkDecoderKind { kDot, kMlp };
inline constexpr core::EnumNames<LinkDecoderKind, 2> kLinkDecoderNames{
    {{"dot", LinkDecoderKind::kDot}, {"mlp", LinkDecoderKind::kMlp}}};

class LinkDecoderImpl : public torch::nn::Module {
 public:
  LinkDecoderImpl(LinkDecoderKind kind, std::int64_t dim);
  // [pairs] scores of rows src[i], dst[i] of the embeddings `z`.
  torch::Tensor forward(const torch::Tensor& z, const torch::Tensor& src, const torch::Tensor& dst);

 private:
  LinkDecoderKind kind_;
  torch::nn::Linear hidden_{nullptr}, out_{nullptr};
};
TORCH_MODULE(LinkDecoder);

}  // namespace loom::nn
