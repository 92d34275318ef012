// GnnModel: a stack of graph convolutions (SAGE, GCN or GAT) with an activation (ReLU or ELU) and
// dropout between layers, and optionally dropout on the input features, mapping the input rows of
// a sampled batch to one row of logits per seed. forward() takes the features of
// batch.input_nodes and the batch's blocks (input layer first); forward_layer() runs one layer
// alone (input dropout before layer 0; activation and dropout after every layer but the last),
// which layer-wise inference uses. Widths: in_features -> hidden -> ... -> num_classes. GAT's
// hidden layers concatenate their heads (hidden is the concatenated width, hidden / heads per
// head) or average them (each head hidden wide); its output layer averages output_heads heads.
// Options that only GAT has are errors on the other models, naming the option.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <torch/nn/module.h>
#include <torch/types.h>

#include "loom/core/enum_names.hpp"
#include "loom/nn/conv.hpp"
#include "loom/nn/message_graph.hpp"

namespace loom::nn {

enum class ModelKind { kSage, kGcn, kGat };
enum class Activation { kRelu, kElu };
enum class HeadMerge { kConcat, kMean };

inline constexpr core::EnumNames<ModelKind, 3> kModelKindNames{
    {{"sage", ModelKind::kSage}, {"gcn", ModelKind::kGcn}, {"gat", ModelKind::kGat}}};
inline std::string model_kind_name(ModelKind kind) { return core::enum_name(kModelKindNames, kind); }
inline constexpr core::EnumNames<Activation, 2> kActivationNames{
    {{"relu", Activation::kRelu}, {"elu", Activation::kElu}}};
inline constexpr core::EnumNames<HeadMerge, 2> kHeadMergeNames{
    {{"concat", HeadMerge::kConcat}, {"mean", HeadMerge::kMean}}};

struct ModelOptions {
  ModelKind kind = ModelKind::kSage;
  int num_layers = 3;
  std::int64_t in_features = 0;
  std::int64_t hidden = 256;
  std::int64_t num_classes = 0;
  double dropout = 0.5;      // after every hidden layer
  double input_dropout = 0;  // on the input features
  Activation activation = Activation::kRelu;
  // GAT only (0 = GAT's default; a non-zero value on another model is an error):
  std::int64_t heads = 0;                     // heads of each hidden layer (0 = 4)
  std::int64_t output_heads = 0;              // heads of the output layer, averaged (0 = as many as hidden layers have)
  double attention_dropout = 0;               // dropout on the attention coefficients
  HeadMerge head_merge = HeadMerge::kConcat;  // how hidden layers combine their heads
};

// Checks every option but the data's widths (in_features, num_classes), naming the option;
// GnnModel's constructor checks them all. For callers that check before the data is read.
void check_model_options(const ModelOptions& options);

// GAT's heads per hidden layer and in the output layer, defaults applied.
std::int64_t gat_heads(const ModelOptions& options);
std::int64_t gat_output_heads(const ModelOptions& options);

class GnnModel : public torch::nn::Module {
 public:
  // Throws loom::Error naming the bad option (layers, hidden, heads, dropout, features, classes).
  explicit GnnModel(const ModelOptions& options);

  // x: [blocks.front().num_src(), in_features], dense or sparse CSR (the first layer multiplies
  // sparse rows without widening them: sparse_linear.hpp); returns [blocks.back().num_dst(), num_classes].
  torch::Tensor forward(const torch::Tensor& x, const std::vector<MessageGraph>& blocks);
  torch::Tensor forward_layer(int layer, const MessageGraph& graph, const torch::Tensor& x);

  int num_layers() const { return static_cast<int>(layers_.size()); }
  // The parameters of one layer (e.g. for weight decay on chosen layers).
  std::vector<torch::Tensor> layer_parameters(int layer) const;
  std::int64_t layer_out_features(int layer) const { return layers_[layer]->out_features(); }
  const ModelOptions& options() const { return options_; }

 private:
  ModelOptions options_;
  std::vector<std::shared_ptr<Conv>> layers_;
};

}  // namespace loom::nn
