#include "loom/core/line_reader.hpp"

#include <zlib.h>

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

namespace loom::core {

LineReader::LineReader(std::string path, std::int64_t max_line_bytes)
    : path_(std::move(path)), buffer_(1 << 20), max_line_bytes_(max_line_bytes) {
  gzFile gz = gzopen(path_.c_str(), "rb");
  if (!gz) throw Error::in_file(path_, 0, std::string("cannot open: ") + std::strerror(errno ? errno : ENOENT));
  gzbuffer(gz, 1 << 18);
  gz_ = gz;
}

LineReader::~LineReader() {
  if (gz_) gzclose(static_cast<gzFile>(gz_));
}

bool LineReader::fill() {
  if (eof_) return false;
  auto gz = static_cast<gzFile>(gz_);
  const int n = gzread(gz, buffer_.data(), static_cast<unsigned>(buffer_.size()));
  if (n < 0) {
    int code = 0;
    const char* msg = gzerror(gz, &code);
    throw error(std::string("truncated or corrupt compressed data (") + msg + ")");
  }
  if (n == 0) {
    int code = 0;
    const char* msg = gzerror(gz, &code);
    if (code != Z_OK && code != Z_STREAM_END)
      throw error(std::string("truncated or corrupt compressed data (") + msg + ")");
    eof_ = true;
    return false;
  }
  buffer_offset_ += static_cast<std::int64_t>(end_);
  begin_ = 0;
  end_ = static_cast<std::size_t>(n);
  return true;
}

bool LineReader::next(std::string_view& line) {
  carry_.clear();
  bool have_carry = false;
  line_offset_ = buffer_offset_ + static_cast<std::int64_t>(begin_);
  for (;;) {
    if (begin_ == end_ && !fill()) {
      if (!have_carry) return false;
      break;
    }
    const char* start = buffer_.data() + begin_;
    const void* nl = std::memchr(start, '\n', end_ - begin_);
    if (nl) {
      const auto len = static_cast<std::size_t>(static_cast<const char*>(nl) - start);
      begin_ += len + 1;
      ++line_number_;
      if (have_carry) {
        carry_.append(start, len);
        line = carry_;
      } else {
        line = std::string_view(start, len);
      }
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      return true;
    }
    carry_.append(start, end_ - begin_);
    have_carry = true;
    begin_ = end_;
    if (static_cast<std::int64_t>(carry_.size()) > max_line_bytes_)
      throw Error::in_file(path_, line_number_ + 1,
                           fmt::format("a line longer than {} MiB, with no line break in it: not a text file of lines",
                                       max_line_bytes_ >> 20));
  }
  ++line_number_;
  line = carry_;
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return true;
}

void split_fields(std::string_view line, std::string_view delims, bool collapse, std::vector<std::string_view>& out) {
  out.clear();
  std::size_t i = 0;
  const std::size_t n = line.size();
  if (collapse)
    while (i < n && delims.find(line[i]) != std::string_view::npos) ++i;
  while (i <= n) {
    std::size_t j = i;
    while (j < n && delims.find(line[j]) == std::string_view::npos) ++j;
    if (!(collapse && j == i && j == n)) out.push_back(line.substr(i, j - i));
    if (j >= n) break;
    i = j + 1;
    if (collapse) {
      while (i < n && delims.find(line[i]) != std::string_view::npos) ++i;
      if (i == n) break;
    }
  }
}

void split_words(std::string_view line, std::vector<std::string_view>& out) {
  split_fields(line, " \t", true, out);
  if (!out.empty() && out.front().empty()) out.erase(out.begin());
  if (!out.empty() && out.back().empty()) out.pop_back();
}

namespace {}  // namespace

bool is_text(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      if ((c < 0x20 && c != '\t') || c == 0x7f) return false;
      ++i;
      continue;
    }
    const std::size_t length = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 ? 2 : 0;
    if (length == 0 || c > 0xf4 || i + length > text.size()) return false;
    for (std::size_t k = 1; k < length; ++k)
      if ((static_cast<unsigned char>(text[i + k]) & 0xc0) != 0x80) return false;
    i += length;
  }
  return true;
}

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}
}  // namespace

std::string quoted(std::string_view text, const LineReader& reader) {
  if (!is_text(text))
    return "binary data (the line at byte " + std::to_string(reader.line_offset()) + " of the file is not text)";
  constexpr std::size_t kShown = 80;
  if (text.size() <= kShown) return "'" + std::string(text) + "'";
  std::size_t cut = kShown;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xc0) == 0x80) --cut;  // not inside a character
  return "'" + std::string(text.substr(0, cut)) + "...'";
}

std::int64_t parse_int(std::string_view field, const LineReader& reader, int field_index) {
  const auto f = trim(field);
  std::int64_t value = 0;
  const char* begin = f.data();
  if (!f.empty() && f.front() == '+') ++begin;
  auto [ptr, ec] = std::from_chars(begin, f.data() + f.size(), value);
  if (f.empty() || ec != std::errc() || ptr != f.data() + f.size())
    throw reader.error("field " + std::to_string(field_index + 1) + ": " + quoted(field, reader) +
                       " is not an integer");
  return value;
}

double parse_double(std::string_view field, const LineReader& reader, int field_index) {
  const auto f = trim(field);
  double value = 0;
  auto [ptr, ec] = std::from_chars(f.data(), f.data() + f.size(), value);
  if (f.empty() || ec != std::errc() || ptr != f.data() + f.size())
    throw reader.error("field " + std::to_string(field_index + 1) + ": " + quoted(field, reader) + " is not a number");
  return value;
}

float parse_float(std::string_view field, const LineReader& reader, int field_index) {
  const auto f = trim(field);
  float value = 0;
  auto [ptr, ec] = std::from_chars(f.data(), f.data() + f.size(), value);
  if (f.empty() || (ec != std::errc() && ec != std::errc::result_out_of_range) || ptr != f.data() + f.size())
    throw reader.error("field " + std::to_string(field_index + 1) + ": " + quoted(field, reader) + " is not a number");
  // Out of range, from_chars leaves `value` as it was: strtof gives +-infinity for a value too large
  // (for the caller's finiteness check to name) and 0 for one too small.
  if (ec == std::errc::result_out_of_range) return std::strtof(std::string(f).c_str(), nullptr);
  return value;
}

}  // namespace loom::core
