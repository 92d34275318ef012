// Reading and writing trained embeddings.
// Formats: word2vec text ("V D" header, then "word v1 ... vD" per line, values in shortest
// round-trip decimal), word2vec binary ("V D\n", then "word " + D little-endian float32 + "\n"
// per row), both loadable by gensim's KeyedVectors.load_word2vec_format (binary=False/True); and
// npy: a float32 V x D .npy plus a vocabulary file "<stem>.vocab.txt" ("word count" per line,
// row order). Every file is written atomically (temp name + rename).
// read_embeddings() detects the format (".npy" suffix or NumPy magic, else text vs binary from the
// first record)
// and throws loom::Error naming the file (and line/vector) on a bad header, a row with the wrong
// number of values, a truncated file, or a vocabulary file that does not match the array.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "loom/core/enum_names.hpp"
#include "loom/embed/matrix.hpp"
#include "loom/embed/vocabulary.hpp"

namespace loom::embed {

enum class EmbeddingFormat { kText, kBinary, kNpy };
inline constexpr core::EnumNames<EmbeddingFormat, 3> kEmbeddingFormatNames{
    {{"text", EmbeddingFormat::kText}, {"binary", EmbeddingFormat::kBinary}, {"npy", EmbeddingFormat::kNpy}}};

// Rows in vocabulary order, dense (no padding).
struct Embeddings {
  std::vector<std::string> words;
  std::vector<std::int64_t> counts;  // from a .vocab.txt; empty when the format has none
  std::int64_t dim = 0;
  std::vector<float> values;  // words.size() x dim

  std::int64_t size() const { return static_cast<std::int64_t>(words.size()); }
  std::span<const float> row(std::int64_t i) const { return {values.data() + i * dim, static_cast<std::size_t>(dim)}; }
};

// Dense copy of a trained matrix with its vocabulary's words and counts.
Embeddings to_embeddings(const Vocabulary& vocab, const EmbeddingMatrix& matrix);

// Writes `embeddings` to `path`; for kNpy also writes vocab_path_for(path).
void write_embeddings(const std::string& path, EmbeddingFormat format, const Embeddings& embeddings);
// Throws Error naming `argument` when a file write_embeddings would write exists and `overwrite` is
// false: checked before training, so a long run does not end by replacing someone's file.
void check_embedding_outputs(const std::string& path, EmbeddingFormat format, bool overwrite,
                             const std::string& argument = "-o");
// "<path without .npy>.vocab.txt".
std::string vocab_path_for(const std::string& npy_path);

Embeddings read_embeddings(const std::string& path);

}  // namespace loom::embed
