#include "loom/embed/text_corpus.hpp"

#include <limits>

#include <absl/container/flat_hash_map.h>
#include <absl/strings/string_view.h>

#include "loom/core/error.hpp"
#include "loom/core/line_reader.hpp"

namespace loom::embed {

EncodedCorpus read_text_corpus(const std::string& path, const TextCorpusOptions& options) {
  LOOM_CHECK_ARG(options.min_count >= 1, "--min-count", "must be >= 1, got {}", options.min_count);
  core::LineReader reader(path, core::kMaxSentenceBytes);
  // First (and only) pass: provisional ids in order of first appearance.
  absl::flat_hash_map<std::string, std::int32_t> ids;
  std::vector<std::string> words;
  std::vector<std::int64_t> counts;
  EncodedCorpus result;
  Corpus& corpus = result.corpus;
  std::string scratch;
  std::vector<std::string_view> line_words;
  std::string_view line;
  while (reader.next(line)) {
    tokenize(line, options.tokenize, scratch, line_words);
    if (line_words.empty()) continue;
    for (const auto word : line_words) {
      auto [it, inserted] =
          ids.try_emplace(absl::string_view(word.data(), word.size()), static_cast<std::int32_t>(words.size()));
      if (inserted) {
        LOOM_CHECK(words.size() < static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()),
                   "{}: more than 2^31 distinct words", path);
        words.emplace_back(word);
        counts.push_back(0);
      }
      ++counts[static_cast<std::size_t>(it->second)];
      corpus.tokens.push_back(it->second);
    }
    corpus.offsets.push_back(static_cast<std::int64_t>(corpus.tokens.size()));
  }
  if (corpus.tokens.empty())
    throw Error::in_file(path, 0,
                         "empty corpus: no words found (tokenize mode " + tokenize_mode_name(options.tokenize) + ")");
  ids = {};
  const auto distinct = words.size();
  std::vector<std::int32_t> remap;
  result.vocab = Vocabulary::build(std::move(words), counts, options.min_count, &remap);
  if (result.vocab.empty())
    throw Error::in_file(path, 0,
                         fmt::format("vocabulary is empty after --min-count {}: {} distinct words, none seen {} times",
                                     options.min_count, distinct, options.min_count));
  remap_corpus(corpus, remap, options.max_sentence_length);
  return result;
}

}  // namespace loom::embed
