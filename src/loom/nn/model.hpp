// GnnModel: a stack of graph convolutions (SAGE, GCN or GAT) with ReLU and dropout between layers,
// mapping the input rows of a sampled batch to one row of logits per seed. forward() takes the
// features of batch.input_nodes and the batch's blocks (input layer first); forward_layer() runs
// one layer alone (with the ReLU/dropout after it unless it is the last), which layer-wise
// inference and full-graph training use. Widths: in_features -> hidden -> ... -> num_classes;
// for GAT, hidden is the concatenated width (hidden / heads per head) and the last layer averages
// its heads.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <torch/nn/module.h>

#include "loom/nn/conv.hpp"
#include "loom/nn/message_graph.hpp"

namespace loom::nn {

enum class ModelKind { kSage, kGcn, kGat };

// "sage" | "gcn" | "gat"; throws loom::Error naming the argument "model".
ModelKind parse_model_kind(const std::string& name);
std::string model_kind_name(ModelKind kind);

struct ModelOptions {
  ModelKind kind = ModelKind::kSage;
  int num_layers = 3;
  std::int64_t in_features = 0;
  std::int64_t hidden = 256;
  std::int64_t num_classes = 0;
  double dropout = 0.5;
  std::int64_t heads = 4;  // GAT only
};

class GnnModel : public torch::nn::Module {
 public:
  // Throws loom::Error naming the bad option (layers, hidden, heads, dropout, features, classes).
  explicit GnnModel(const ModelOptions& options);

  // x: [blocks.front().num_src(), in_features]; returns [blocks.back().num_dst(), num_classes].
  torch::Tensor forward(const torch::Tensor& x, const std::vector<MessageGraph>& blocks);
  torch::Tensor forward_layer(int layer, const MessageGraph& graph, const torch::Tensor& x);

  int num_layers() const { return static_cast<int>(layers_.size()); }
  std::int64_t layer_out_features(int layer) const { return layers_[layer]->out_features(); }
  const ModelOptions& options() const { return options_; }

 private:
  ModelOptions options_;
  std::vector<std::shared_ptr<Conv>> layers_;
};

}  // namespace loom::nn
