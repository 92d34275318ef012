#include "loom/embed/eval/linkpred_protocol.hpp"

#include <spdlog/spdlog.h>

#include "loom/core/error.hpp"

namespace loom::embed::eval {

LinkPredProtocolResult run_linkpred(const LinkPredProtocolOptions& options) {
  sample::walk::check_walk_options(options.graph.walks);
  check(options.graph.sgns);
  LOOM_CHECK_ARG(!options.operators.empty(), "--operator", "no edge operator given");
  const auto store = graph::GraphStore::open(options.store);
  const auto split = linkpred_split(store, options.split);
  spdlog::info("link prediction split: {} of {} edges held out, {} train and {} test pairs", split.removed_edges,
               split.total_edges, split.train_pairs.size(), split.test_pairs.size());
  if (!options.save_residual.empty()) {
    graph::StoreWriteOptions write;
    write_graph_store(split.residual, options.save_residual, write);
  }

  const auto& r = split.residual;
  const auto residual = graph::Csr::from_vectors(r.indptr, r.indices, r.num_rows());
  const auto embedding = train_graph_embedding(residual, node_keys(store), options.graph);

  LinkPredProtocolResult result;
  result.total_edges = split.total_edges;
  result.removed_edges = split.removed_edges;
  result.walk_steps = embedding.walk_steps;
  result.walk_seconds = embedding.walk_seconds;
  result.train = embedding.train;
  for (const auto op : options.operators)
    result.scores.emplace_back(edge_operator_name(op),
                               evaluate_link_prediction(embedding.vectors, split, op, options.logistic));
  return result;
}

nlohmann::json LinkPredProtocolResult::to_json() const {
  nlohmann::json j = {{"total_edges", total_edges},
                      {"removed_edges", removed_edges},
                      {"walk_steps_per_second", walk_seconds > 0 ? walk_steps / walk_seconds : 0.0},
                      {"train_seconds", train.seconds}};
  for (const auto& [name, s] : scores)
    j["auc"][name] = {{"auc", s.auc},
                      {"train_pairs", s.train_pairs},
                      {"test_pairs", s.test_pairs},
                      {"skipped_pairs", s.skipped_pairs}};
  return j;
}

}  // namespace loom::embed::eval
