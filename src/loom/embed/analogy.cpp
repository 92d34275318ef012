#include "loom/embed/analogy.hpp"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "loom/core/error.hpp"
#include "loom/core/line_reader.hpp"
#include "loom/core/parallel.hpp"
#include "loom/embed/word_lookup.hpp"

namespace loom::embed {

namespace {

struct Question {
  std::int64_t a, b, c, d;
  std::size_t section;
};

// Rows 0..n-1 scaled to unit length (zero rows stay zero).
std::vector<float> normalized_rows(const Embeddings& e, std::int64_t n) {
  std::vector<float> out(e.values.begin(), e.values.begin() + n * e.dim);
  core::parallel_for(
      n,
      [&](std::int64_t i) {
        float* row = out.data() + i * e.dim;
        double norm = 0;
        for (std::int64_t k = 0; k < e.dim; ++k) norm += static_cast<double>(row[k]) * row[k];
        if (norm > 0) {
          const auto inv = static_cast<float>(1.0 / std::sqrt(norm));
          for (std::int64_t k = 0; k < e.dim; ++k) row[k] *= inv;
        }
      },
      256);
  return out;
}

void add(AnalogyScore& into, const AnalogyScore& from) {
  into.questions += from.questions;
  into.covered += from.covered;
  into.correct += from.correct;
}

// The questions of the file whose four words are all among the `lookup`'s words, each in its
// section of `report` (sections counted: questions, covered).
std::vector<Question> read_questions(const std::string& questions_path, const WordLookup& lookup,
                                     AnalogyReport& report) {
  std::vector<Question> questions;
  core::LineReader reader(questions_path);
  std::string_view line;
  std::vector<std::string_view> fields;
  while (reader.next(line)) {
    core::split_words(line, fields);
    if (fields.empty()) continue;
    if (fields[0] == ":" || fields[0].starts_with(":")) {
      std::string name =
          fields[0].size() > 1 ? std::string(fields[0].substr(1)) : (fields.size() > 1 ? std::string(fields[1]) : "");
      report.sections.push_back(AnalogyScore{name});
      continue;
    }
    if (fields.size() != 4) throw reader.error(fmt::format("expected 4 words, found {}", fields.size()));
    if (report.sections.empty()) report.sections.push_back(AnalogyScore{"questions"});
    auto& section = report.sections.back();
    ++section.questions;
    const Question q{lookup.find(fields[0]), lookup.find(fields[1]), lookup.find(fields[2]), lookup.find(fields[3]),
                     report.sections.size() - 1};
    if (q.a < 0 || q.b < 0 || q.c < 0 || q.d < 0) continue;
    ++section.covered;
    questions.push_back(q);
  }
  if (report.sections.empty()) throw Error::in_file(questions_path, 0, "no analogy questions found");
  return questions;
}

// Whether each question's nearest word to b - a + c (cosine over the `n` unit rows, a, b and c
// excluded) is d: batches of queries scored by one matrix product each.
std::vector<char> answer(const std::vector<Question>& questions, const std::vector<float>& unit, std::int64_t n,
                         std::int64_t dim) {
  constexpr std::int64_t kBatch = 256;
  std::vector<float> query(static_cast<std::size_t>(kBatch * dim)), scores(static_cast<std::size_t>(kBatch * n));
  std::vector<char> correct(questions.size(), 0);
  for (std::int64_t begin = 0; begin < static_cast<std::int64_t>(questions.size()); begin += kBatch) {
    const std::int64_t count = std::min<std::int64_t>(kBatch, static_cast<std::int64_t>(questions.size()) - begin);
    for (std::int64_t q = 0; q < count; ++q) {
      const auto& question = questions[static_cast<std::size_t>(begin + q)];
      const float *a = unit.data() + question.a * dim, *b = unit.data() + question.b * dim,
                  *c = unit.data() + question.c * dim;
      for (std::int64_t k = 0; k < dim; ++k) query[static_cast<std::size_t>(q * dim + k)] = b[k] - a[k] + c[k];
    }
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<int>(count), static_cast<int>(n),
                static_cast<int>(dim), 1.0f, query.data(), static_cast<int>(dim), unit.data(), static_cast<int>(dim),
                0.0f, scores.data(), static_cast<int>(n));
    core::parallel_for(
        count,
        [&](std::int64_t q) {
          const auto& question = questions[static_cast<std::size_t>(begin + q)];
          const float* row = scores.data() + q * n;
          std::int64_t best = -1;
          float best_score = -std::numeric_limits<float>::infinity();
          for (std::int64_t w = 0; w < n; ++w) {
            if (w == question.a || w == question.b || w == question.c) continue;
            if (row[w] > best_score) {
              best_score = row[w];
              best = w;
            }
          }
          correct[static_cast<std::size_t>(begin + q)] = best == question.d;
        },
        8);
  }
  return correct;
}

}  // namespace

AnalogyReport evaluate_analogy(const Embeddings& embeddings, const std::string& questions_path, std::int64_t top) {
  LOOM_CHECK_ARG(top >= 1, "--top", "must be >= 1, got {}", top);
  AnalogyReport report;
  report.top = std::min(top, embeddings.size());
  const WordLookup lookup(embeddings, report.top);
  const std::vector<Question> questions = read_questions(questions_path, lookup, report);
  const std::vector<char> correct =
      answer(questions, normalized_rows(embeddings, report.top), report.top, embeddings.dim);
  for (std::size_t i = 0; i < questions.size(); ++i)
    if (correct[i]) ++report.sections[questions[i].section].correct;
  for (const auto& s : report.sections) {
    add(s.name.starts_with("gram") ? report.syntactic : report.semantic, s);
    add(report.total, s);
  }
  return report;
}

nlohmann::json to_json(const AnalogyReport& report) {
  const auto score = [](const AnalogyScore& s) {
    return nlohmann::json{{"name", s.name},
                          {"questions", s.questions},
                          {"covered", s.covered},
                          {"correct", s.correct},
                          {"accuracy", s.accuracy()}};
  };
  nlohmann::json sections = nlohmann::json::array();
  for (const auto& s : report.sections) sections.push_back(score(s));
  return {{"top", report.top},
          {"sections", sections},
          {"semantic", score(report.semantic)},
          {"syntactic", score(report.syntactic)},
          {"total", score(report.total)}};
}

std::string format_table(const AnalogyReport& report) {
  std::string out = fmt::format("analogy (3CosAdd over the {} most frequent words)\n", report.top);
  out += fmt::format("{:<28} {:>9} {:>8} {:>8} {:>9}\n", "section", "questions", "covered", "correct", "accuracy");
  const auto row = [&](const AnalogyScore& s) {
    out += fmt::format("{:<28} {:>9} {:>8} {:>8} {:>8.2f}%\n", s.name, s.questions, s.covered, s.correct,
                       100.0 * s.accuracy());
  };
  for (const auto& s : report.sections) row(s);
  out += std::string(66, '-') + "\n";
  row(report.semantic);
  row(report.syntactic);
  row(report.total);
  out += fmt::format("not covered (a word outside the top {}): {} questions\n", report.top,
                     report.total.questions - report.total.covered);
  return out;
}

}  // namespace loom::embed
