// A training corpus for the SGNS trainer: every sentence (a text line, a random walk) as a run of
// int32 token ids in one flat array, held in memory. Sentence i is tokens[offsets[i], offsets[i+1]);
// ids are rows of a Vocabulary (0 = most frequent). Text corpora come from read_text_corpus
// (text_corpus.hpp); any other int sequences (walks over node ids) go through encode_sequences.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "loom/embed/vocabulary.hpp"

namespace loom::embed {

struct Corpus {
  std::vector<std::int32_t> tokens;
  std::vector<std::int64_t> offsets{0};  // size num_sentences() + 1, offsets[0] == 0

  std::int64_t num_sentences() const { return static_cast<std::int64_t>(offsets.size()) - 1; }
  std::int64_t num_tokens() const { return static_cast<std::int64_t>(tokens.size()); }
  std::span<const std::int32_t> sentence(std::int64_t i) const {
    return {tokens.data() + offsets[static_cast<std::size_t>(i)],
            static_cast<std::size_t>(offsets[static_cast<std::size_t>(i) + 1] - offsets[static_cast<std::size_t>(i)])};
  }
};

// A corpus with the vocabulary its ids refer to.
struct EncodedCorpus {
  Vocabulary vocab;
  Corpus corpus;
  // For encode_sequences: the input token of each vocabulary id (e.g. the node id). Empty for text.
  std::vector<std::int32_t> source_token;
};

// Encodes int sequences (e.g. walks: tokens are node ids in [0, names.size())): counts tokens,
// builds the Vocabulary from `names` (names[t] = the word written for token t, e.g. "17") with
// `min_count`, and re-encodes the sequences with vocabulary ids, dropping tokens below min-count
// and sentences left empty. `offsets` delimit the sequences as in Corpus. Throws Error if a token is
// out of range, or if the vocabulary is empty after min-count.
// `merge_counts`, when given, may replace the token counts before the vocabulary is built (a
// distributed run sums them over ranks, so that every rank builds the same vocabulary).
EncodedCorpus encode_sequences(std::span<const std::int32_t> tokens, std::span<const std::int64_t> offsets,
                               std::vector<std::string> names, std::int64_t min_count,
                               const std::function<void(std::vector<std::int64_t>&)>& merge_counts = {});

// Remaps corpus tokens through `remap` (old id -> new id or -1 = drop), dropping empty sentences
// and splitting sentences longer than max_sentence_length. In place.
void remap_corpus(Corpus& corpus, std::span<const std::int32_t> remap, std::int64_t max_sentence_length);

}  // namespace loom::embed
