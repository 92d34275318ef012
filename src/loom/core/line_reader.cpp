#include "loom/core/line_reader.hpp"

#include <zlib.h>

#include <cerrno>
#include <charconv>
#include <cstring>

namespace loom::core {

LineReader::LineReader(std::string path) : path_(std::move(path)), buffer_(1 << 20) {
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
  begin_ = 0;
  end_ = static_cast<std::size_t>(n);
  return true;
}

bool LineReader::next(std::string_view& line) {
  carry_.clear();
  bool have_carry = false;
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

namespace {
std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}
}  // namespace

std::int64_t parse_int(std::string_view field, const LineReader& reader, int field_index) {
  const auto f = trim(field);
  std::int64_t value = 0;
  const char* begin = f.data();
  if (!f.empty() && f.front() == '+') ++begin;
  auto [ptr, ec] = std::from_chars(begin, f.data() + f.size(), value);
  if (f.empty() || ec != std::errc() || ptr != f.data() + f.size())
    throw reader.error("field " + std::to_string(field_index + 1) + ": '" + std::string(field) + "' is not an integer");
  return value;
}

double parse_double(std::string_view field, const LineReader& reader, int field_index) {
  const auto f = trim(field);
  double value = 0;
  auto [ptr, ec] = std::from_chars(f.data(), f.data() + f.size(), value);
  if (f.empty() || ec != std::errc() || ptr != f.data() + f.size())
    throw reader.error("field " + std::to_string(field_index + 1) + ": '" + std::string(field) + "' is not a number");
  return value;
}

float parse_float(std::string_view field, const LineReader& reader, int field_index) {
  const auto f = trim(field);
  float value = 0;
  auto [ptr, ec] = std::from_chars(f.data(), f.data() + f.size(), value);
  if (f.empty() || (ec != std::errc() && ec != std::errc::result_out_of_range) || ptr != f.data() + f.size())
    throw reader.error("field " + std::to_string(field_index + 1) + ": '" + std::string(field) + "' is not a number");
  return value;
}

}  // namespace loom::core
