// word2vec text/binary and npy+vocab formats round-trip exactly; bad files name the problem.
#include <gtest/gtest.h>

#include "loom/core/error.hpp"
#include "loom/core/fs.hpp"
#include "loom/embed/embeddings_io.hpp"
#include "support/test_support.hpp"

namespace loom::embed {
namespace {

Embeddings sample_embeddings() {
  Embeddings e;
  e.words = {"the", "cat", "zebra"};
  e.counts = {10, 5, 2};
  e.dim = 3;
  e.values = {0.1f, -2.5e-7f, 3.0f, 1.0f / 3.0f, 0.0f, -1.25f, 1e10f, 7.0f, -0.0625f};
  return e;
}

void expect_same(const Embeddings& a, const Embeddings& b) {
  EXPECT_EQ(a.words, b.words);
  EXPECT_EQ(a.dim, b.dim);
  EXPECT_EQ(a.values, b.values);
}

TEST(EmbeddingsIo, TextRoundTripsExactly) {
  test::ScratchDir dir;
  write_embeddings(dir / "e.txt", EmbeddingFormat::kText, sample_embeddings());
  expect_same(read_embeddings(dir / "e.txt"), sample_embeddings());
}

TEST(EmbeddingsIo, BinaryRoundTripsExactly) {
  test::ScratchDir dir;
  write_embeddings(dir / "e.bin", EmbeddingFormat::kBinary, sample_embeddings());
  expect_same(read_embeddings(dir / "e.bin"), sample_embeddings());
}

TEST(EmbeddingsIo, NpyWritesVocabularyBesideAndRoundTrips) {
  test::ScratchDir dir;
  write_embeddings(dir / "e.npy", EmbeddingFormat::kNpy, sample_embeddings());
  EXPECT_TRUE(test::exists(dir / "e.vocab.txt"));
  const auto back = read_embeddings(dir / "e.npy");
  expect_same(back, sample_embeddings());
  EXPECT_EQ(back.counts, sample_embeddings().counts);
  // Under a name without the suffix the NumPy magic still tells the format.
  write_embeddings(dir / "e.emb", EmbeddingFormat::kNpy, sample_embeddings());
  EXPECT_TRUE(test::exists(dir / "e.emb.vocab.txt"));
  expect_same(read_embeddings(dir / "e.emb"), sample_embeddings());
}

std::string error_of(const std::string& path) {
  try {
    read_embeddings(path);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(EmbeddingsIo, TextRowWithWrongDimensionIsAnErrorWithLine) {
  test::ScratchDir dir;
  test::write_file(dir / "bad.txt", "2 3\na 1 2 3\nb 1 2\n");
  const auto message = error_of(dir / "bad.txt");
  EXPECT_NE(message.find("bad.txt:3"), std::string::npos) << message;
  EXPECT_NE(message.find("inconsistent dimensions"), std::string::npos) << message;
}

TEST(EmbeddingsIo, TextWithFewerRowsThanHeaderIsAnError) {
  test::ScratchDir dir;
  test::write_file(dir / "short.txt", "3 2\na 1 2\nb 1 2\n");
  EXPECT_NE(error_of(dir / "short.txt").find("announces 3 vectors, found 2"), std::string::npos);
}

TEST(EmbeddingsIo, TruncatedBinaryIsAnError) {
  test::ScratchDir dir;
  write_embeddings(dir / "e.bin", EmbeddingFormat::kBinary, sample_embeddings());
  auto bytes = core::read_text_file(dir / "e.bin");
  test::write_file(dir / "cut.bin", bytes.substr(0, bytes.size() - 9));
  EXPECT_NE(error_of(dir / "cut.bin").find("truncated"), std::string::npos);
}

TEST(EmbeddingsIo, NpyWithMismatchedVocabularyIsAnError) {
  test::ScratchDir dir;
  write_embeddings(dir / "e.npy", EmbeddingFormat::kNpy, sample_embeddings());
  test::write_file(dir / "e.vocab.txt", "the 1\ncat 1\n");
  EXPECT_NE(error_of(dir / "e.npy").find("2 words for the 3 rows"), std::string::npos);
}

TEST(EmbeddingsIo, BadHeaderIsAnError) {
  test::ScratchDir dir;
  test::write_file(dir / "h.txt", "hello world\n");
  EXPECT_NE(error_of(dir / "h.txt").find("h.txt:1"), std::string::npos);
  EXPECT_THROW(core::parse_enum(kEmbeddingFormatNames, "csv", "--format"), Error);
}

}  // namespace
}  // namespace loom::embed
