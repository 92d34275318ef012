#include "loom/embed/corpus.hpp"

#include <limits>

#include "loom/core/error.hpp"

namespace loom::embed {

void remap_corpus(Corpus& corpus, std::span<const std::int32_t> remap, std::int64_t max_sentence_length) {
  std::vector<std::int64_t> offsets{0};
  std::int64_t out = 0;
  for (std::int64_t s = 0; s < corpus.num_sentences(); ++s) {
    std::int64_t length = 0;
    for (std::int64_t i = corpus.offsets[static_cast<std::size_t>(s)];
         i < corpus.offsets[static_cast<std::size_t>(s) + 1]; ++i) {
      const std::int32_t id = remap[static_cast<std::size_t>(corpus.tokens[static_cast<std::size_t>(i)])];
      if (id < 0) continue;
      corpus.tokens[static_cast<std::size_t>(out++)] = id;
      if (++length == max_sentence_length) {
        offsets.push_back(out);
        length = 0;
      }
    }
    if (length > 0) offsets.push_back(out);
  }
  corpus.tokens.resize(static_cast<std::size_t>(out));
  corpus.tokens.shrink_to_fit();
  corpus.offsets = std::move(offsets);
}

EncodedCorpus encode_sequences(std::span<const std::int32_t> tokens, std::span<const std::int64_t> offsets,
                               std::vector<std::string> names, std::int64_t min_count,
                               const std::function<void(std::vector<std::int64_t>&)>& merge_counts) {
  LOOM_CHECK(!offsets.empty() && offsets.front() == 0 && offsets.back() == static_cast<std::int64_t>(tokens.size()),
             "sequences: offsets must start at 0 and end at the token count {}", tokens.size());
  const auto n = static_cast<std::int64_t>(names.size());
  std::vector<std::int64_t> counts(names.size(), 0);
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    LOOM_CHECK(tokens[i] >= 0 && tokens[i] < n, "sequences: token {} at position {} is outside [0, {})", tokens[i], i,
               n);
    ++counts[static_cast<std::size_t>(tokens[i])];
  }
  if (merge_counts) merge_counts(counts);
  EncodedCorpus result;
  std::vector<std::int32_t> remap;
  result.vocab = Vocabulary::build(std::move(names), counts, min_count, &remap);
  LOOM_CHECK(!result.vocab.empty(), "sequences: vocabulary is empty after --min-count {} ({} tokens)", min_count,
             tokens.size());
  result.source_token.assign(static_cast<std::size_t>(result.vocab.size()), -1);
  for (std::size_t t = 0; t < remap.size(); ++t)
    if (remap[t] >= 0) result.source_token[static_cast<std::size_t>(remap[t])] = static_cast<std::int32_t>(t);
  result.corpus.tokens.assign(tokens.begin(), tokens.end());
  result.corpus.offsets.assign(offsets.begin(), offsets.end());
  for (std::size_t s = 1; s < offsets.size(); ++s)
    LOOM_CHECK(offsets[s] >= offsets[s - 1], "sequences: offsets decrease at sentence {}", s - 1);
  remap_corpus(result.corpus, remap, std::numeric_limits<std::int64_t>::max());
  return result;
}

}  // namespace loom::embed
