// `loom eval nodeclass EMB --store STORE [--ratios 0.1,0.5,0.9 --repeats 5]`: one-vs-rest logistic
// regression node classification (micro/macro-F1, top-k for multi-label stores).
// `loom eval linkpred STORE [--method node2vec --p 1 --q 1 ...]`: the whole link-prediction
// protocol (split keeping the graph connected, embed the residual graph, logistic regression on edge
// features, ROC-AUC). See embed/eval/. Hang off E1's `eval` command.
#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "loom/cli/commands.hpp"
#include "loom/cli/graph_embed_args.hpp"
#include "loom/cli/typed_options.hpp"
#include "loom/core/enum_names.hpp"
#include "loom/core/parallel.hpp"
#include "loom/embed/eval/linkpred_protocol.hpp"
#include "loom/partition/store_verification.hpp"

namespace loom::cli {

namespace {

struct NodeClassArgs {
  std::string embeddings, store;
  embed::eval::NodeClassOptions options;
  int threads = 2;
  bool as_json = false;
};

int run_nodeclass(const NodeClassArgs& args) {
  LOOM_CHECK_ARG(args.threads >= 1, "--threads", "must be >= 1, got {}", args.threads);
  core::set_num_threads(args.threads);
  const auto store = graph::GraphStore::open(args.store);
  partition::verify_store(partition::mapped_folders(args.store));
  const auto labels = embed::eval::labels_from_store(store);
  const auto aligned = embed::eval::align_to_store(embed::read_embeddings(args.embeddings), store);
  const auto result = embed::eval::evaluate_node_classification(aligned.vectors, labels, args.options);
  if (args.as_json) {
    auto j = result.to_json();
    j["embeddings"] = args.embeddings;
    j["store"] = args.store;
    j["unknown_keys"] = aligned.unknown_keys;
    fmt::print("{}\n", j.dump());
  } else {
    fmt::print("{} vectors matched {} of {} nodes ({} keys not in the store)\n{}", args.embeddings, aligned.matched,
               store.num_nodes(), aligned.unknown_keys, result.to_table());
  }
  return 0;
}

// The walks that embed the residual graph: uniform (DeepWalk) or biased by --p and --q (node2vec).
enum class WalkMethod { kDeepWalk, kNode2Vec };
inline constexpr core::EnumNames<WalkMethod, 2> kWalkMethodNames{
    {{"deepwalk", WalkMethod::kDeepWalk}, {"node2vec", WalkMethod::kNode2Vec}}};

struct LinkPredArgs {
  GraphEmbedArgs graph;
  embed::eval::LinkPredProtocolOptions options;
  WalkMethod method = WalkMethod::kNode2Vec;
  std::vector<std::string> operators{"hadamard"};
  bool as_json = false;
};

int run_linkpred(LinkPredArgs args) {
  args.graph.finish();
  auto& o = args.options;
  o.graph = args.graph.options;
  if (args.method == WalkMethod::kDeepWalk)
    LOOM_CHECK_ARG(!o.graph.walks.second_order(), "--method",
                   "deepwalk walks are uniform; use --method node2vec to set --p and --q");
  o.operators.clear();
  for (const auto& name : args.operators)
    o.operators.push_back(core::parse_enum(embed::eval::kEdgeOperatorNames, name, "--operator"));
  partition::verify_store(partition::mapped_folders(o.store));
  const auto r = embed::eval::run_linkpred(o);
  if (args.as_json) {
    nlohmann::json j = {{"store", o.store},
                        {"method", core::enum_name(kWalkMethodNames, args.method)},
                        {"p", o.graph.walks.p},
                        {"q", o.graph.walks.q}};
    j.update(r.to_json());
    fmt::print("{}\n", j.dump());
  } else {
    fmt::print("{} link prediction on {}: {} of {} edges held out\n", core::enum_name(kWalkMethodNames, args.method),
               o.store, r.removed_edges, r.total_edges);
    for (const auto& [name, s] : r.scores)
      fmt::print("{:>9}: AUC {:.4f} ({} train, {} test pairs{})\n", name, s.auc, s.train_pairs, s.test_pairs,
                 s.skipped_pairs ? fmt::format(", {} skipped", s.skipped_pairs) : std::string());
  }
  return 0;
}

}  // namespace

void add_eval_graph_commands(CLI::App& app, Action& action) {
  auto* eval_cmd = app.get_subcommand("eval");

  auto nc = std::make_shared<NodeClassArgs>();
  auto* n =
      eval_cmd->add_subcommand("nodeclass", "Node classification: one-vs-rest logistic regression, micro/macro-F1");
  n->add_option("embeddings", nc->embeddings, "Embedding file keyed by the store's original ids")->required();
  n->add_option("--store", nc->store, "Graph store with labels")->required();
  n->add_option("--ratios", nc->options.train_ratios, "Train ratios")->delimiter(',')->capture_default_str();
  n->add_option("--repeats", nc->options.repeats, "Random splits per ratio")->capture_default_str();
  n->add_option("--C", nc->options.logistic.C, "Inverse L2 regularisation strength")->capture_default_str();
  n->add_option("--seed", nc->options.seed, "Seed of the splits")->capture_default_str();
  n->add_option("--threads", nc->threads, "Threads")->capture_default_str();
  n->add_flag("--json", nc->as_json, "Print JSON");
  n->callback([&action, nc] { action = [nc] { return run_nodeclass(*nc); }; });

  auto lp = std::make_shared<LinkPredArgs>();
  auto* l = eval_cmd->add_subcommand("linkpred", "Link prediction: hold out half the edges, embed the rest, ROC-AUC");
  l->add_option("store", lp->options.store, "Undirected graph store")->required();
  add_enum_option(*l, "--method", lp->method, kWalkMethodNames, "Walks: uniform (deepwalk) or biased by --p, --q");
  add_graph_embed_options(*l, lp->graph, /*biased=*/true);
  l->add_option("--operator", lp->operators, "Edge features: hadamard, average, l1, l2 (comma-separated)")
      ->delimiter(',')
      ->capture_default_str();
  l->add_option("--remove-fraction", lp->options.split.remove_fraction, "Fraction of edges held out")
      ->capture_default_str();
  l->add_option("--train-fraction", lp->options.split.train_fraction, "Fraction of pairs the classifier trains on")
      ->capture_default_str();
  l->add_option("--C", lp->options.logistic.C, "Inverse L2 regularisation strength")->capture_default_str();
  l->add_option("--save-residual", lp->options.save_residual, "Also write the residual graph store here");
  l->add_flag("--json", lp->as_json, "Print JSON");
  l->callback([&action, lp] {
    lp->options.split.seed = lp->graph.options.sgns.seed;
    action = [lp] { return run_linkpred(*lp); };
  });
}

}  // namespace loom::cli
