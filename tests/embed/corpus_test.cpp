// Tokenizer modes, vocabulary order and min-count, text corpus encoding and its errors, and the
// int-sequence (walk) encoding.
#include <gtest/gtest.h>

#include "loom/core/error.hpp"
#include "loom/embed/corpus.hpp"
#include "loom/embed/text_corpus.hpp"
#include "loom/embed/tokenizer.hpp"
#include "support/test_support.hpp"

namespace loom::embed {
namespace {

std::vector<std::string> words_of(std::string_view line, TokenizeMode mode) {
  std::string scratch;
  std::vector<std::string_view> views;
  tokenize(line, mode, scratch, views);
  return {views.begin(), views.end()};
}

TEST(Tokenizer, LowerLettersKeepsOnlyLowercasedLetterRuns) {
  EXPECT_EQ(words_of("Don't STOP-me, 42times\xE2\x80\x9Cnow\xE2\x80\x9D", TokenizeMode::kLowerLetters),
            (std::vector<std::string>{"don", "t", "stop", "me", "times", "now"}));
}

TEST(Tokenizer, LowerStripsPunctuationAtBothEnds) {
  EXPECT_EQ(words_of("  \"Don't\" STOP-me, (ok)... \xE2\x80\x9CHe\xE2\x80\x9D -- ", TokenizeMode::kLower),
            (std::vector<std::string>{"don't", "stop-me", "ok", "he"}));
}

TEST(Tokenizer, RawSplitsOnWhitespaceOnly) {
  EXPECT_EQ(words_of("A\tb,  C.\r", TokenizeMode::kRaw), (std::vector<std::string>{"A", "b,", "C."}));
}

TEST(Tokenizer, UnknownModeNamesTheOption) {
  try {
    core::parse_enum(kTokenizeModeNames, "upper", "--tokenize");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--tokenize"), std::string::npos);
  }
}

TEST(Vocabulary, SortsByCountThenWordAndDropsRareWords) {
  std::vector<std::int32_t> remap;
  const std::vector<std::int64_t> counts{2, 5, 1, 5};
  const auto vocab = Vocabulary::build({"b", "x", "rare", "a"}, counts, 2, &remap);
  ASSERT_EQ(vocab.size(), 3);
  EXPECT_EQ(vocab.words(), (std::vector<std::string>{"a", "x", "b"}));
  EXPECT_EQ(vocab.total(), 12);
  EXPECT_EQ(remap, (std::vector<std::int32_t>{2, 1, -1, 0}));
  EXPECT_EQ(vocab.find("x"), 1);
  EXPECT_EQ(vocab.find("rare"), -1);
}

TEST(TextCorpus, EncodesLinesAsSentencesWithFrequencyIds) {
  test::ScratchDir dir;
  test::write_file(dir / "c.txt.gz", "The cat sat.\n\nthe dog; THE cat!\nzebra\n", /*gzip=*/true);
  const auto encoded = read_text_corpus(dir / "c.txt.gz", {TokenizeMode::kLowerLetters, 2, 10000});
  EXPECT_EQ(encoded.vocab.words(), (std::vector<std::string>{"the", "cat"}));
  EXPECT_EQ(encoded.corpus.tokens, (std::vector<std::int32_t>{0, 1, 0, 0, 1}));
  EXPECT_EQ(encoded.corpus.offsets, (std::vector<std::int64_t>{0, 2, 5}));  // "zebra" line dropped
}

TEST(TextCorpus, SplitsLongLines) {
  test::ScratchDir dir;
  test::write_file(dir / "c.txt", "a a a a a a a\n");
  const auto encoded = read_text_corpus(dir / "c.txt", {TokenizeMode::kRaw, 1, 3});
  EXPECT_EQ(encoded.corpus.offsets, (std::vector<std::int64_t>{0, 3, 6, 7}));
}

TEST(TextCorpus, EmptyCorpusIsAnErrorNamingTheFile) {
  test::ScratchDir dir;
  test::write_file(dir / "empty.txt", "\n  \n123 ,,\n");
  try {
    read_text_corpus(dir / "empty.txt", {TokenizeMode::kLowerLetters, 1, 10000});
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("empty.txt"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("empty corpus"), std::string::npos);
  }
}

TEST(TextCorpus, VocabularyEmptyAfterMinCountIsAnError) {
  test::ScratchDir dir;
  test::write_file(dir / "c.txt", "one two three\n");
  try {
    read_text_corpus(dir / "c.txt", {TokenizeMode::kLowerLetters, 5, 10000});
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("vocabulary is empty after --min-count 5"), std::string::npos);
  }
}

TEST(Sequences, EncodeNodeWalksWithNamesAndSourceTokens) {
  const std::vector<std::int32_t> walks{3, 1, 3, 0, 3, 1};
  const std::vector<std::int64_t> offsets{0, 3, 6};
  const auto encoded = encode_sequences(walks, offsets, {"n0", "n1", "n2", "n3"}, 2);
  EXPECT_EQ(encoded.vocab.words(), (std::vector<std::string>{"n3", "n1"}));
  EXPECT_EQ(encoded.source_token, (std::vector<std::int32_t>{3, 1}));
  EXPECT_EQ(encoded.corpus.tokens, (std::vector<std::int32_t>{0, 1, 0, 0, 1}));
  EXPECT_EQ(encoded.corpus.offsets, (std::vector<std::int64_t>{0, 3, 5}));
  const std::vector<std::int32_t> bad{0, 9};
  const std::vector<std::int64_t> bad_offsets{0, 2};
  EXPECT_THROW(encode_sequences(bad, bad_offsets, {"a", "b"}, 1), Error);
}

}  // namespace
}  // namespace loom::embed
