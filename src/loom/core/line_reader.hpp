// Reads a text file line by line, gzip-compressed or plain (detected by content), with the
// line number and the line's byte offset kept for error messages. A truncated or corrupt gzip
// stream raises an Error naming the file and the line reached. Field helpers parse numbers with
// std::from_chars and report the file, line and field on failure. quoted() puts what was read
// into a message: the text in quotes, or, for bytes that are not text (a binary file given as an
// edge list), where they are, so that no raw bytes reach the terminal.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "loom/core/error.hpp"

namespace loom::core {

// Lines longer than a reader's limit are an Error (line number and limit named): a file with no line
// breaks (/dev/zero, a binary file) would otherwise be held whole, its memory growing without end.
inline constexpr std::int64_t kMaxLineBytes = std::int64_t{64} << 20;     // edge lists, tables, vectors
inline constexpr std::int64_t kMaxSentenceBytes = std::int64_t{1} << 30;  // text corpora (text8: 100 MB)

class LineReader {
 public:
  explicit LineReader(std::string path, std::int64_t max_line_bytes = kMaxLineBytes);
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  // Next line without its newline (and without a trailing '\r'); false at end of file.
  bool next(std::string_view& line);
  std::int64_t line_number() const { return line_number_; }
  // Byte offset of the current line's first byte in the (decompressed) file.
  std::int64_t line_offset() const { return line_offset_; }
  const std::string& path() const { return path_; }

  // An Error located at the current line.
  Error error(const std::string& message) const { return Error::in_file(path_, line_number_, message); }

 private:
  bool fill();
  std::string path_;
  void* gz_ = nullptr;
  std::vector<char> buffer_;
  std::size_t begin_ = 0, end_ = 0;
  bool eof_ = false;
  std::string carry_;
  std::int64_t line_number_ = 0;
  std::int64_t buffer_offset_ = 0;  // offset of buffer_[0] in the decompressed file
  std::int64_t line_offset_ = 0;
  std::int64_t max_line_bytes_;
};

// "'text'" (at most 80 characters, then "..."), or where `text` (read on the reader's current
// line) holds a control byte or is not UTF-8: "binary data (the line at byte N of the file is
// not text)".
std::string quoted(std::string_view text, const LineReader& reader);
// Whether `text` is UTF-8 with no control byte but tab.
bool is_text(std::string_view text);

// Splits `line` on any of `delims` (consecutive delimiters collapse when `collapse`).
void split_fields(std::string_view line, std::string_view delims, bool collapse, std::vector<std::string_view>& out);
// The words of `line`: the fields between runs of spaces and tabs, none of them empty.
void split_words(std::string_view line, std::vector<std::string_view>& out);

// Parse one field; on failure throw reader.error("field N: '<text>' is not an integer").
std::int64_t parse_int(std::string_view field, const LineReader& reader, int field_index);
double parse_double(std::string_view field, const LineReader& reader, int field_index);
float parse_float(std::string_view field, const LineReader& reader, int field_index);

}  // namespace loom::core
