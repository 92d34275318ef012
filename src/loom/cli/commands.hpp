// Each `loom` subcommand lives in its own cmd_<name>.cpp and adds itself to the app through
// one of these functions; add_commands() calls them all, for main() and for the Python package's
// in-process commands (loom.run). A command only parses options into a plain struct and, when
// selected, sets `action` to a call of a library entry point (so tests and benchmarks can call the
// same code). The caller runs the action after parsing and logging set-up.
#pragma once

#include <functional>

#include <CLI/CLI.hpp>

namespace loom::train {
struct MinibatchOptions;
struct FullGraphOptions;
}  // namespace loom::train

namespace loom::cli {

// Returns the process exit status.
using Action = std::function<int()>;

// Every subcommand of `loom` (all_commands.cpp: with LibTorch's, for `loom-torch` and the Python
// package).
void add_commands(CLI::App& app, Action& action);
// Every subcommand but the two that need LibTorch (`train`, `fullgraph`): what the `loom` binary
// runs itself (torch_commands.hpp).
void add_base_commands(CLI::App& app, Action& action);

// One-line summaries of the LibTorch commands, shared by them and by their entries in `loom`.
inline constexpr const char* kTrainSummary =
    "Sampled mini-batch GNN training (one process, or mpirun -np K on K parts)";
inline constexpr const char* kPlanSummary =
    "Predict an epoch of `loom train` on a cluster of K hosts not at hand, and pick the configuration";
inline constexpr const char* kFullgraphSummary =
    "Full-graph training of deep GNNs: graph parallelism, GNNPipe pipelining, or hybrid (mpirun -np P)";

void add_info_command(CLI::App& app, Action& action);
// `loom check STORE`: digests and invariants.
void add_check_command(CLI::App& app, Action& action);
// `loom partition DIR -k K --method ... -o PARTS`.
void add_partition_command(CLI::App& app, Action& action);
// `loom import ogb|edgelist|npy` (each hangs off the `import` subcommand).
void add_import_ogb(CLI::App& import_cmd, Action& action);
void add_import_edgelist(CLI::App& import_cmd, Action& action);
void add_import_npy(CLI::App& import_cmd, Action& action);
void add_import_mag240m(CLI::App& import_cmd, Action& action);
// `loom import fashion-mnist` (hangs off the `import` subcommand).
void add_import_fashion_mnist(CLI::App& import_cmd, Action& action);
// `loom generate rmat|sbm`.
void add_generate_command(CLI::App& app, Action& action);
// `loom embed text` (and the other `embed` subcommands, in cmd_embed.cpp).
void add_embed_command(CLI::App& app, Action& action);
// `loom eval analogy|similarity` (and the other `eval` subcommands, in cmd_eval.cpp).
void add_eval_command(CLI::App& app, Action& action);
// `loom embed deepwalk|node2vec` (cmd_embed_graph.cpp) and `loom eval nodeclass|linkpred`
// (cmd_eval_graph.cpp): call after add_embed_command / add_eval_command, whose subcommands they join.
void add_embed_graph_commands(CLI::App& app, Action& action);
void add_eval_graph_commands(CLI::App& app, Action& action);
// `loom walk`: random walks and their throughput.
void add_walk_command(CLI::App& app, Action& action);
// `loom train`: sampled mini-batch GNN training (cmd_train.cpp).
void add_train_command(CLI::App& app, Action& action);
// `loom train`'s options but its store, for the commands that take them and its --config files
// (`loom plan`).
void add_minibatch_options(CLI::App& sub, train::MinibatchOptions& options);
// `loom plan` and `loom plan calibrate` (cmd_plan.cpp, cmd_plan_calibrate.cpp).
void add_plan_command(CLI::App& app, Action& action);
// `loom analyze cache`: static cache policies without training (cmd_analyze.cpp).
void add_analyze_command(CLI::App& app, Action& action);
void add_fullgraph_command(CLI::App& app, Action& action);
// `loom fullgraph`'s model and layout options (--model, --layers, --hidden, ..., --ways, --chunks),
// for the commands that take them (`loom plan fullgraph`).
void add_fullgraph_model_options(CLI::App& sub, train::FullGraphOptions& options);

}  // namespace loom::cli
