// Word analogy evaluation (3CosAdd), as word2vec's compute-accuracy: for "a b c d", predict the
// word nearest by cosine to b - a + c among the `top` most frequent words (rows 0..top-1),
// excluding a, b and c; correct if it is d. Questions with a word outside those rows are counted as
// not covered (reported, not an error); lookups ignore case. Sections come from ": name" lines;
// sections named "gram*" are syntactic, the others semantic. The questions file is parsed with
// errors naming its line.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "loom/embed/embeddings_io.hpp"

namespace loom::embed {

struct AnalogyScore {
  std::string name;
  std::int64_t questions = 0;  // in the file
  std::int64_t covered = 0;    // all four words among the top rows
  std::int64_t correct = 0;
  double accuracy() const { return covered ? static_cast<double>(correct) / static_cast<double>(covered) : 0.0; }
};

struct AnalogyReport {
  std::int64_t top = 0;
  std::vector<AnalogyScore> sections;
  AnalogyScore semantic{"semantic"}, syntactic{"syntactic"}, total{"total"};
};

AnalogyReport evaluate_analogy(const Embeddings& embeddings, const std::string& questions_path,
                               std::int64_t top = 30000);

nlohmann::json to_json(const AnalogyReport& report);
std::string format_table(const AnalogyReport& report);

}  // namespace loom::embed
