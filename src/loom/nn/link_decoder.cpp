#include "loom/nn/link_decoder.hpp"

#include <torch/nn/functional/activation.h>

namespace loom::nn {

LinkDecoderImpl::LinkDecoderImpl(LinkDecoderKind kind, std::int64_t dim) : kind_(kind) {
  if (kind_ != LinkDecoderKind::kMlp) return;
  hidden_ = register_module("hidden", torch::nn::Linear(dim, dim));
  out_ = register_module("out", torch::nn::Linear(dim, 1));
}

torch::Tensor LinkDecoderImpl::forward(const torch::Tensor& z, const torch::Tensor& src, const torch::Tensor& dst) {
  const torch::Tensor product = z.index_select(0, src) * z.index_select(0, dst);
  if (kind_ == LinkDecoderKind::kDot) return product.sum(-1);
  return out_->forward(torch::relu(hidden_->forward(product))).squeeze(-1);
}

}  // namespace loom::nn
