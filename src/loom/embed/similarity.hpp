// Word-similarity evaluation: Spearman rank correlation between human scores and embedding
// cosines over the word pairs of a file. Reads wordsim353 (tab separated, '#' comments), SimLex-999
// (a header line naming the columns; the score is the "SimLex999" column) and MEN (space separated
// "word1 word2 score", optional header). Lines are split on tabs if the line has one, else on
// spaces; a first line whose score field is not a number is a header (the score column is the
// one named SimLex999, else "score", else the third). Pairs with a word missing from the
// embeddings (case-insensitive) are counted, not an error. Malformed lines throw an Error with the
// file and line.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include <nlohmann/json.hpp>

#include "loom/embed/embeddings_io.hpp"

namespace loom::embed {

struct SimilarityReport {
  std::string name;          // file name
  std::int64_t pairs = 0;    // in the file
  std::int64_t covered = 0;  // both words found
  double spearman = 0;       // over the covered pairs (0 if fewer than 2)
  double pearson = 0;
};

SimilarityReport evaluate_similarity(const Embeddings& embeddings, const std::string& pairs_path);

// Spearman's rho with average ranks for ties (0 if fewer than 2 values or a constant side).
double spearman(std::span<const double> x, std::span<const double> y);
double pearson(std::span<const double> x, std::span<const double> y);

nlohmann::json to_json(const SimilarityReport& report);
std::string format_table(const SimilarityReport& report);

}  // namespace loom::embed
