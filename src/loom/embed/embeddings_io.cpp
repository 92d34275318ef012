#include "loom/embed/embeddings_io.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <string_view>

#include <fmt/format.h>

#include "loom/core/error.hpp"
#include "loom/core/fs.hpp"
#include "loom/core/line_reader.hpp"
#include "loom/format/npy.hpp"

namespace loom::embed {

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

void put(core::AtomicFile& file, const std::string& path, const void* data, std::size_t bytes) {
  if (std::fwrite(data, 1, bytes, file.stream()) != bytes)
    throw Error::in_file(path, 0, std::string("write failed: ") + std::strerror(errno));
}

void write_text(const std::string& path, const Embeddings& e) {
  core::AtomicFile file(path);
  fmt::memory_buffer buffer;
  fmt::format_to(std::back_inserter(buffer), "{} {}\n", e.size(), e.dim);
  for (std::int64_t i = 0; i < e.size(); ++i) {
    fmt::format_to(std::back_inserter(buffer), "{}", e.words[static_cast<std::size_t>(i)]);
    for (const float v : e.row(i)) fmt::format_to(std::back_inserter(buffer), " {}", v);
    buffer.push_back('\n');
    if (buffer.size() > (1 << 20)) {
      put(file, path, buffer.data(), buffer.size());
      buffer.clear();
    }
  }
  put(file, path, buffer.data(), buffer.size());
  file.commit();
}

void write_binary(const std::string& path, const Embeddings& e) {
  core::AtomicFile file(path);
  const std::string header = fmt::format("{} {}\n", e.size(), e.dim);
  put(file, path, header.data(), header.size());
  for (std::int64_t i = 0; i < e.size(); ++i) {
    const std::string& word = e.words[static_cast<std::size_t>(i)];
    put(file, path, word.data(), word.size());
    put(file, path, " ", 1);
    put(file, path, e.row(i).data(), static_cast<std::size_t>(e.dim) * sizeof(float));
    put(file, path, "\n", 1);
  }
  file.commit();
}

void write_npy_with_vocab(const std::string& path, const Embeddings& e) {
  const std::string vocab_path = vocab_path_for(path);
  core::AtomicFile vocab(vocab_path);
  fmt::memory_buffer buffer;
  for (std::int64_t i = 0; i < e.size(); ++i)
    fmt::format_to(std::back_inserter(buffer), "{} {}\n", e.words[static_cast<std::size_t>(i)],
                   e.counts.empty() ? 0 : e.counts[static_cast<std::size_t>(i)]);
  put(vocab, vocab_path, buffer.data(), buffer.size());
  format::write_npy(path, format::DType::kFloat32, {e.size(), e.dim}, e.values.data());
  vocab.commit();
}

// Parses the "V D" header line; throws an Error naming the file otherwise.
void parse_header(std::string_view line, const std::string& path, std::int64_t& rows, std::int64_t& dim) {
  std::vector<std::string_view> fields;
  core::split_fields(line, " \t", true, fields);
  if (fields.size() != 2)
    throw Error::in_file(path, 1,
                         "expected a header 'VOCAB_SIZE DIM', found '" + std::string(line.substr(0, 80)) + "'");
  const auto parse = [&](std::string_view f, const char* what) {
    std::int64_t v = 0;
    const auto [ptr, ec] = std::from_chars(f.data(), f.data() + f.size(), v);
    if (ec != std::errc() || ptr != f.data() + f.size() || v < 0)
      throw Error::in_file(path, 1, fmt::format("header {} '{}' is not a non-negative integer", what, f));
    return v;
  };
  rows = parse(fields[0], "vocabulary size");
  dim = parse(fields[1], "dimension");
  if (dim < 1) throw Error::in_file(path, 1, "header dimension must be >= 1");
  if (rows > std::numeric_limits<std::int64_t>::max() / 8 / dim)
    throw Error::in_file(path, 1,
                         fmt::format("header announces {} vectors of dimension {}: more than memory holds", rows, dim));
}

// Room reserved for what a header announces: never more than a modest start (a wrong header must
// not allocate what the file does not hold; the vectors grow as they are read).
std::size_t reservation(std::int64_t announced) {
  return static_cast<std::size_t>(std::min<std::int64_t>(announced, std::int64_t{1} << 20));
}

Embeddings read_text(const std::string& path) {
  core::LineReader reader(path);
  std::string_view line;
  if (!reader.next(line)) throw Error::in_file(path, 0, "empty embedding file");
  Embeddings e;
  std::int64_t rows = 0;
  parse_header(line, path, rows, e.dim);
  e.words.reserve(reservation(rows));
  e.values.reserve(reservation(rows * e.dim));
  std::vector<std::string_view> fields;
  while (reader.next(line)) {
    core::split_words(line, fields);
    if (fields.empty()) continue;
    if (e.size() == rows) throw reader.error(fmt::format("more vectors than the {} the header announces", rows));
    const auto values = static_cast<std::int64_t>(fields.size()) - 1;
    if (values != e.dim)
      throw reader.error(
          fmt::format("inconsistent dimensions: '{}' has {} values, the header says {}", fields[0], values, e.dim));
    e.words.emplace_back(fields[0]);
    for (std::size_t k = 1; k < fields.size(); ++k)
      e.values.push_back(core::parse_float(fields[k], reader, static_cast<int>(k) + 1));
  }
  if (e.size() != rows)
    throw Error::in_file(path, 0, fmt::format("the header announces {} vectors, found {}", rows, e.size()));
  return e;
}

Embeddings read_binary(const std::string& path, const std::string& bytes) {
  const auto nl = bytes.find('\n');
  if (nl == std::string::npos) throw Error::in_file(path, 1, "missing header line");
  Embeddings e;
  std::int64_t rows = 0;
  parse_header(std::string_view(bytes).substr(0, nl), path, rows, e.dim);
  const std::size_t vector_bytes = static_cast<std::size_t>(e.dim) * sizeof(float);
  const std::size_t body = bytes.size() - nl - 1;  // each vector takes a word, a space and its floats
  if (static_cast<std::size_t>(rows) > body / (vector_bytes + 2))
    throw Error::in_file(path, 0,
                         fmt::format("truncated: the header announces {} vectors of dimension {}, the file "
                                     "holds {} bytes after it",
                                     rows, e.dim, body));
  e.words.reserve(static_cast<std::size_t>(rows));
  e.values.resize(static_cast<std::size_t>(rows * e.dim));
  std::size_t pos = nl + 1;
  for (std::int64_t i = 0; i < rows; ++i) {
    while (pos < bytes.size() && (bytes[pos] == '\n' || bytes[pos] == ' ')) ++pos;
    const auto space = bytes.find(' ', pos);
    if (space == std::string::npos || space + 1 + vector_bytes > bytes.size())
      throw Error::in_file(path, 0,
                           fmt::format("truncated: vector {} of {} is incomplete (dimension {})", i + 1, rows, e.dim));
    e.words.emplace_back(bytes.substr(pos, space - pos));
    std::memcpy(e.values.data() + i * e.dim, bytes.data() + space + 1, vector_bytes);
    pos = space + 1 + vector_bytes;
  }
  while (pos < bytes.size() && (bytes[pos] == '\n' || bytes[pos] == ' ')) ++pos;
  if (pos != bytes.size())
    throw Error::in_file(
        path, 0,
        fmt::format("inconsistent dimensions: {} bytes left after the {} vectors of dimension {} the header announces",
                    bytes.size() - pos, rows, e.dim));
  return e;
}

Embeddings read_npy_with_vocab(const std::string& path) {
  const auto array = format::NpyArray::map(path);
  if (array.ndim() != 2)
    throw Error::in_file(path, 0, fmt::format("expected a 2-D array, found {} dimensions", array.ndim()));
  Embeddings e;
  e.dim = array.shape()[1];
  if (e.dim < 1) throw Error::in_file(path, 0, "embedding dimension is 0");
  const auto values = array.span<float>();
  e.values.assign(values.begin(), values.end());
  const std::string vocab_path = vocab_path_for(path);
  core::LineReader reader(vocab_path);
  std::string_view line;
  std::vector<std::string_view> fields;
  while (reader.next(line)) {
    core::split_fields(line, " \t", true, fields);
    if (fields.empty() || fields[0].empty()) continue;
    if (fields.size() > 2) throw reader.error("expected 'word [count]'");
    e.words.emplace_back(fields[0]);
    e.counts.push_back(fields.size() == 2 ? core::parse_int(fields[1], reader, 2) : 0);
  }
  if (e.size() != array.rows())
    throw Error::in_file(vocab_path, 0, fmt::format("{} words for the {} rows of {}", e.size(), array.rows(), path));
  return e;
}

// Text if the bytes after the first word look like decimal numbers.
bool looks_like_text(const std::string& bytes) {
  auto pos = bytes.find('\n');
  if (pos == std::string::npos) return true;
  const auto space = bytes.find(' ', pos + 1);
  if (space == std::string::npos) return true;
  const auto line_end = bytes.find('\n', space + 1);
  const std::size_t end =
      std::min({bytes.size(), space + 1 + 256, line_end == std::string::npos ? bytes.size() : line_end});
  for (std::size_t i = space + 1; i < end; ++i) {
    const char c = bytes[i];
    if (!((c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E' || c == ' ' || c == '\t' ||
          c == '\n' || c == '\r' || c == 'n' || c == 'a' || c == 'i' || c == 'f'))
      return false;
  }
  return true;
}

// True for an .npy written under another name (--format npy -o x.emb): its first 6 bytes.
bool starts_with_npy_magic(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[6] = {};
  return in.read(magic, sizeof(magic)) && std::string_view(magic, sizeof(magic)) == "\x93NUMPY";
}

}  // namespace

void check_embedding_outputs(const std::string& path, EmbeddingFormat format, bool overwrite,
                             const std::string& argument) {
  core::check_output_target(path, overwrite, argument);
  if (format == EmbeddingFormat::kNpy) core::check_output_target(vocab_path_for(path), overwrite, argument);
}

std::string vocab_path_for(const std::string& npy_path) {
  return (ends_with(npy_path, ".npy") ? npy_path.substr(0, npy_path.size() - 4) : npy_path) + ".vocab.txt";
}

Embeddings to_embeddings(const Vocabulary& vocab, const EmbeddingMatrix& matrix) {
  LOOM_CHECK(vocab.size() == matrix.rows(), "embeddings: {} words for {} rows", vocab.size(), matrix.rows());
  Embeddings e;
  e.words = vocab.words();
  e.counts.assign(vocab.counts().begin(), vocab.counts().end());
  e.dim = matrix.dim();
  e.values.resize(static_cast<std::size_t>(matrix.rows() * matrix.dim()));
  for (std::int64_t r = 0; r < matrix.rows(); ++r)
    std::memcpy(e.values.data() + r * e.dim, matrix.row(r), static_cast<std::size_t>(e.dim) * sizeof(float));
  return e;
}

void write_embeddings(const std::string& path, EmbeddingFormat format, const Embeddings& embeddings) {
  LOOM_CHECK(embeddings.values.size() == static_cast<std::size_t>(embeddings.size() * embeddings.dim),
             "embeddings: {} values for {} x {}", embeddings.values.size(), embeddings.size(), embeddings.dim);
  switch (format) {
    case EmbeddingFormat::kText: return write_text(path, embeddings);
    case EmbeddingFormat::kBinary: return write_binary(path, embeddings);
    case EmbeddingFormat::kNpy: return write_npy_with_vocab(path, embeddings);
  }
}

Embeddings read_embeddings(const std::string& path) {
  if (ends_with(path, ".npy") || starts_with_npy_magic(path)) return read_npy_with_vocab(path);
  std::string bytes = core::read_text_file(path);
  if (bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f && static_cast<unsigned char>(bytes[1]) == 0x8b)
    return read_text(path);  // gzip: text format through LineReader
  if (looks_like_text(bytes)) {
    bytes = {};
    return read_text(path);
  }
  return read_binary(path, bytes);
}

}  // namespace loom::embed
