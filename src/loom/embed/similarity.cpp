#include "loom/embed/similarity.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <numeric>

#include <fmt/format.h>

#include "loom/core/error.hpp"
#include "loom/core/line_reader.hpp"
#include "loom/embed/word_lookup.hpp"

namespace loom::embed {

namespace {

std::vector<double> average_ranks(std::span<const double> v) {
  std::vector<std::size_t> order(v.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return v[a] < v[b]; });
  std::vector<double> ranks(v.size());
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]]) ++j;
    const double rank = (static_cast<double>(i) + static_cast<double>(j)) / 2.0 + 1.0;
    for (std::size_t k = i; k <= j; ++k) ranks[order[k]] = rank;
    i = j + 1;
  }
  return ranks;
}

bool is_number(std::string_view s) {
  double v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && ptr == s.data() + s.size();
}

double cosine(std::span<const float> a, std::span<const float> b) {
  double ab = 0, aa = 0, bb = 0;
  for (std::size_t k = 0; k < a.size(); ++k) {
    ab += static_cast<double>(a[k]) * b[k];
    aa += static_cast<double>(a[k]) * a[k];
    bb += static_cast<double>(b[k]) * b[k];
  }
  return aa > 0 && bb > 0 ? ab / std::sqrt(aa * bb) : 0.0;
}

}  // namespace

double pearson(std::span<const double> x, std::span<const double> y) {
  const auto n = static_cast<double>(x.size());
  if (x.size() < 2) return 0.0;
  const double mx = std::accumulate(x.begin(), x.end(), 0.0) / n, my = std::accumulate(y.begin(), y.end(), 0.0) / n;
  double sxy = 0, sxx = 0, syy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) * (x[i] - mx);
    syy += (y[i] - my) * (y[i] - my);
  }
  return sxx > 0 && syy > 0 ? sxy / std::sqrt(sxx * syy) : 0.0;
}

double spearman(std::span<const double> x, std::span<const double> y) {
  if (x.size() < 2) return 0.0;
  const auto rx = average_ranks(x), ry = average_ranks(y);
  return pearson(rx, ry);
}

SimilarityReport evaluate_similarity(const Embeddings& embeddings, const std::string& pairs_path) {
  SimilarityReport report;
  report.name = std::filesystem::path(pairs_path).filename().string();
  const WordLookup lookup(embeddings, embeddings.size());
  core::LineReader reader(pairs_path);
  std::string_view line;
  std::vector<std::string_view> fields;
  std::vector<double> human, model;
  int score_column = 2;
  bool first = true;
  while (reader.next(line)) {
    if (line.empty() || line.front() == '#') continue;
    const bool tabs = line.find('\t') != std::string_view::npos;
    core::split_fields(line, tabs ? "\t" : " ", !tabs, fields);
    if (!tabs && !fields.empty() && fields.front().empty()) fields.erase(fields.begin());
    if (!tabs && !fields.empty() && fields.back().empty()) fields.pop_back();
    if (fields.empty()) continue;
    if (first) {
      first = false;
      if (fields.size() >= 3 && !is_number(fields[2])) {  // header line
        int found = -1;
        for (std::size_t k = 0; k < fields.size(); ++k)
          // input text: the header row's column names
          if (ascii_lower(fields[k]) == "simlex999") found = static_cast<int>(k);
        if (found < 0)
          for (std::size_t k = 0; k < fields.size(); ++k)
            // input text: the header row's column names
            if (ascii_lower(fields[k]) == "score") found = static_cast<int>(k);
        score_column = found >= 0 ? found : 2;
        continue;
      }
    }
    if (static_cast<int>(fields.size()) <= score_column)
      throw reader.error(fmt::format("expected at least {} fields (word1 word2 ... score), found {}", score_column + 1,
                                     fields.size()));
    const double score = core::parse_double(fields[static_cast<std::size_t>(score_column)], reader, score_column + 1);
    ++report.pairs;
    const auto a = lookup.find(fields[0]), b = lookup.find(fields[1]);
    if (a < 0 || b < 0) continue;
    ++report.covered;
    human.push_back(score);
    model.push_back(cosine(embeddings.row(a), embeddings.row(b)));
  }
  if (report.pairs == 0) throw Error::in_file(pairs_path, 0, "no word pairs found");
  report.spearman = spearman(human, model);
  report.pearson = pearson(human, model);
  return report;
}

nlohmann::json to_json(const SimilarityReport& r) {
  return {
      {"name", r.name}, {"pairs", r.pairs}, {"covered", r.covered}, {"spearman", r.spearman}, {"pearson", r.pearson}};
}

std::string format_table(const SimilarityReport& r) {
  return fmt::format("{:<24} {:>6} {:>8} {:>9} {:>8}\n{:<24} {:>6} {:>8} {:>9.4f} {:>8.4f}\n", "pairs file", "pairs",
                     "covered", "spearman", "pearson", r.name, r.pairs, r.covered, r.spearman, r.pearson);
}

}  // namespace loom::embed
