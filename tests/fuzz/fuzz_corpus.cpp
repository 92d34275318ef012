// Text corpora (`loom embed text`): sentences per line, each tokenizer mode.
#include "fuzz_input.hpp"
#include "loom/embed/text_corpus.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const loom::fuzz::ModeAndBytes input =
      loom::fuzz::split_mode(data, size, static_cast<int>(loom::embed::kTokenizeModeNames.size()));
  const std::string path = loom::fuzz::write_input("corpus.txt", input.bytes);
  loom::embed::TextCorpusOptions o;
  o.tokenize = loom::embed::kTokenizeModeNames[static_cast<std::size_t>(input.mode)].second;
  o.min_count = 1;
  o.max_sentence_length = 50;
  loom::fuzz::expect_parse_or_error([&] { loom::embed::read_text_corpus(path, o); });
  return 0;
}
