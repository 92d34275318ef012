// `loom eval analogy EMB --questions FILE [--top 30000] [--json]` and
// `loom eval similarity EMB --pairs FILE... [--json]`: evaluate word embeddings (any format that
// embed/embeddings_io.hpp reads). Missing words are reported, not errors.
#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "loom/cli/commands.hpp"
#include "loom/embed/analogy.hpp"
#include "loom/embed/embeddings_io.hpp"
#include "loom/embed/similarity.hpp"

namespace loom::cli {

namespace {

struct AnalogyArgs {
  std::string embeddings, questions;
  std::int64_t top = 30000;
  bool as_json = false;
};

struct SimilarityArgs {
  std::string embeddings;
  std::vector<std::string> pairs;
  bool as_json = false;
};

int run_analogy(const AnalogyArgs& args) {
  const auto embeddings = embed::read_embeddings(args.embeddings);
  const auto report = embed::evaluate_analogy(embeddings, args.questions, args.top);
  fmt::print("{}", args.as_json ? embed::to_json(report).dump() + "\n" : embed::format_table(report));
  return 0;
}

int run_similarity(const SimilarityArgs& args) {
  const auto embeddings = embed::read_embeddings(args.embeddings);
  nlohmann::json all = nlohmann::json::array();
  for (const auto& path : args.pairs) {
    const auto report = embed::evaluate_similarity(embeddings, path);
    if (args.as_json)
      all.push_back(embed::to_json(report));
    else
      fmt::print("{}", embed::format_table(report));
  }
  if (args.as_json) fmt::print("{}\n", all.dump());
  return 0;
}

}  // namespace

void add_eval_command(CLI::App& app, Action& action) {
  auto* eval_cmd = app.add_subcommand("eval", "Evaluate embeddings");
  eval_cmd->require_subcommand(1);

  auto analogy = std::make_shared<AnalogyArgs>();
  auto* a = eval_cmd->add_subcommand("analogy", "Word analogies (3CosAdd), per section and total");
  a->add_option("embeddings", analogy->embeddings, "Embedding file (word2vec text/binary, or .npy + .vocab.txt)")
      ->required();
  a->add_option("--questions", analogy->questions, "Questions file (questions-words.txt format)")->required();
  a->add_option("--top", analogy->top, "Restrict to the most frequent words")->capture_default_str();
  a->add_flag("--json", analogy->as_json, "Print JSON");
  a->callback([&action, analogy] { action = [analogy] { return run_analogy(*analogy); }; });

  auto similarity = std::make_shared<SimilarityArgs>();
  auto* s = eval_cmd->add_subcommand("similarity", "Word similarity (Spearman) on wordsim353, SimLex-999, MEN");
  s->add_option("embeddings", similarity->embeddings, "Embedding file")->required();
  s->add_option("--pairs", similarity->pairs, "Word-pair files")->required();
  s->add_flag("--json", similarity->as_json, "Print JSON");
  s->callback([&action, similarity] { action = [similarity] { return run_similarity(*similarity); }; });
}

}  // namespace loom::cli
