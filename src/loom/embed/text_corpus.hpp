// Reads a text corpus (gzip or plain) into an EncodedCorpus in one pass: each line is a sentence
// (lines longer than max_sentence_length words are split, like gensim's LineSentence), words come
// from tokenize() in the chosen mode, the Vocabulary keeps words seen >= min_count times.
// Errors (loom::Error naming the file): unreadable or corrupt file, no words at all, vocabulary
// empty after min-count.
#pragma once

#include <cstdint>
#include <string>

#include "loom/embed/corpus.hpp"
#include "loom/embed/tokenizer.hpp"

namespace loom::embed {

struct TextCorpusOptions {
  TokenizeMode tokenize = TokenizeMode::kLowerLetters;
  std::int64_t min_count = 5;
  std::int64_t max_sentence_length = 10000;
};

EncodedCorpus read_text_corpus(const std::string& path, const TextCorpusOptions& options);

}  // namespace loom::embed
