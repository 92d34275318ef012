// The whole link-prediction protocol of node2vec in one call, the library entry point of
// `loom eval linkpred`: split the store's edges (linkpred_split: half held out, graph kept
// connected), train DeepWalk/node2vec embeddings on the residual graph only, then score each edge
// operator by logistic regression ROC-AUC on the test pairs. The residual store can be saved (for
// embedding it with another tool); it is written atomically.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "loom/embed/eval/graph_embedding.hpp"
#include "loom/embed/eval/link_prediction.hpp"

namespace loom::embed::eval {

struct LinkPredProtocolOptions {
  std::string store;
  LinkSplitOptions split{};
  GraphEmbedOptions graph{};
  std::vector<EdgeOperator> operators{EdgeOperator::kHadamard};
  LogisticOptions logistic{};
  std::string save_residual;  // empty: do not save
};

struct LinkPredProtocolResult {
  std::int64_t total_edges = 0, removed_edges = 0;
  std::int64_t walk_steps = 0;
  double walk_seconds = 0;
  SgnsStats train;
  std::vector<std::pair<std::string, LinkPredResult>> scores;  // operator name -> result

  // {total_edges, removed_edges, walk_steps_per_second, train_seconds, auc: {operator: {auc, ...}}}
  nlohmann::json to_json() const;
};

LinkPredProtocolResult run_linkpred(const LinkPredProtocolOptions& options);

}  // namespace loom::embed::eval
