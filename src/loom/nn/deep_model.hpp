// DeepGnn: the deep models of full-graph training (GNNPipe's benchmarks), as three parts that
// pipeline stages can own separately:
//   input(features)  h0 = ReLU(W_in dropout(x))                       [n, hidden]
//   layer(l, ...)    one of num_layers hidden-to-hidden blocks          [num_dst, hidden]
//   output(h)        logits = W_out dropout(h)                          [n, classes]
// Blocks, all over a MessageGraph whose destinations are the first sources:
//   gcn     h' = ReLU(GCN(dropout(x)))
//   sage    h' = ReLU(SAGE-mean(dropout(x)))
//   gcnii   h' = ReLU(((1-a) P~ x' + a h0) ((1-b_l) I + b_l W_l)), x' = dropout(x),
//           b_l = log(lambda / (l+1) + 1)   (Chen et al. 2020; h0 = the input() rows of the
//           destinations, shared by every layer)
//   resgcn  h' = x_dst + GCN(dropout(ReLU(LayerNorm(x))))   (ResGCN+, pre-activation, DeeperGCN)
// Each part's parameters are listed separately (input_parameters, layer_parameters(l),
// output_parameters) so that a stage optimizes and all-reduces only what it owns.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <torch/nn/module.h>

#include "loom/core/enum_names.hpp"
#include "loom/nn/message_graph.hpp"

namespace loom::nn {

enum class DeepKind { kGcn, kSage, kGcnii, kResGcn };

inline constexpr core::EnumNames<DeepKind, 4> kDeepKindNames{
    {{"gcnii", DeepKind::kGcnii}, {"gcn", DeepKind::kGcn}, {"sage", DeepKind::kSage}, {"resgcn", DeepKind::kResGcn}}};
inline std::string deep_kind_name(DeepKind kind) { return core::enum_name(kDeepKindNames, kind); }

struct DeepModelOptions {
  DeepKind kind = DeepKind::kGcnii;
  int num_layers = 32;
  std::int64_t in_features = 0;
  std::int64_t hidden = 100;
  std::int64_t num_classes = 0;
  double dropout = 0.5;
  double alpha = 0.1;   // gcnii: weight of the initial residual h0
  double lambda = 0.5;  // gcnii: identity-mapping strength
};

// Throws Error naming the CLI argument (--layers, --hidden, --dropout, --gcnii-alpha,
// --gcnii-lambda) for a value out of range: what can be checked before the data is read. DeepGnn's
// constructor checks these and the data's widths.
void check_model_options(const DeepModelOptions& options);

class DeepBlock;

class DeepGnn : public torch::nn::Module {
 public:
  // Throws loom::Error naming the bad option.
  explicit DeepGnn(const DeepModelOptions& options);

  torch::Tensor input(const torch::Tensor& features);
  // x: [graph.num_src(), hidden]; h0: the input() rows of the destinations (read by gcnii only;
  // may be undefined for the other kinds).
  torch::Tensor layer(int l, const MessageGraph& graph, const torch::Tensor& x, const torch::Tensor& h0);
  torch::Tensor output(const torch::Tensor& h);

  // Whether every layer reads h0 (so every pipeline stage needs the input part).
  bool uses_initial_residual() const { return options_.kind == DeepKind::kGcnii; }
  int num_layers() const { return options_.num_layers; }
  const DeepModelOptions& options() const { return options_; }

  std::vector<torch::Tensor> input_parameters() const;
  std::vector<torch::Tensor> layer_parameters(int l) const;
  std::vector<torch::Tensor> output_parameters() const;

 private:
  DeepModelOptions options_;
  torch::Tensor w_in_, b_in_, w_out_, b_out_;
  std::vector<std::shared_ptr<DeepBlock>> blocks_;
};

}  // namespace loom::nn
