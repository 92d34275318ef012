#include "loom/core/config_file.hpp"

#include <cctype>
#include <charconv>
#include <map>
#include <string_view>

#include "loom/core/error.hpp"
#include "loom/core/line_reader.hpp"

namespace loom::core {

namespace {

bool is_bare_key_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'; }

void skip_space(std::string_view s, std::size_t& i) {
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
}

// Parses one line of the subset at a time; fail() names the file and line.
class LineParser {
 public:
  LineParser(std::string_view line, const LineReader& reader) : s_(line), reader_(reader) {}

  [[noreturn]] void fail(const std::string& message) const { throw reader_.error(message); }

  // True when only spaces or a comment remain.
  bool at_end() {
    skip_space(s_, i_);
    return i_ == s_.size() || s_[i_] == '#';
  }
  bool peek(char c) {
    skip_space(s_, i_);
    return i_ < s_.size() && s_[i_] == c;
  }
  void expect(char c, const char* what) {
    if (!peek(c)) fail(fmt::format("expected {} at column {}", what, i_ + 1));
    ++i_;
  }

  std::string key() {
    skip_space(s_, i_);
    if (i_ < s_.size() && (s_[i_] == '"' || s_[i_] == '\'')) return quoted();
    const std::size_t begin = i_;
    while (i_ < s_.size() && is_bare_key_char(s_[i_])) ++i_;
    if (i_ == begin) fail(fmt::format("expected a key at column {}", begin + 1));
    std::string k(s_.substr(begin, i_ - begin));
    if (peek('.')) fail(fmt::format("dotted key '{}.' is not supported: use a [section] header", k));
    return k;
  }

  // One value: a scalar, or an array of scalars (elements joined by ',').
  void value(ConfigEntry& entry) {
    skip_space(s_, i_);
    if (!peek('[')) {
      entry.kind = scalar(entry.text);
      return;
    }
    ++i_;
    entry.kind = ConfigValueKind::kArray;
    entry.text.clear();
    bool first = true;
    while (!peek(']')) {
      if (at_end()) fail("an array must close on the line it opens ('[' without ']')");
      if (!first) entry.text += ',';
      std::string element;
      if (peek('[')) fail("nested arrays are not supported");
      scalar(element);
      entry.text += element;
      first = false;
      if (peek(',')) {
        ++i_;
      } else if (!peek(']')) {
        fail(fmt::format("expected ',' or ']' at column {}", i_ + 1));
      }
    }
    ++i_;
  }

 private:
  ConfigValueKind scalar(std::string& out) {
    skip_space(s_, i_);
    if (i_ == s_.size()) fail("missing value after '='");
    const char c = s_[i_];
    if (c == '"' || c == '\'') {
      out = quoted();
      return ConfigValueKind::kString;
    }
    if (c == '{') fail("inline tables are not supported");
    const std::size_t begin = i_;
    while (i_ < s_.size() && s_[i_] != ',' && s_[i_] != ']' && s_[i_] != '#' && s_[i_] != ' ' && s_[i_] != '\t') ++i_;
    const std::string_view word = s_.substr(begin, i_ - begin);
    if (word == "true" || word == "false") {  // input text: a TOML boolean
      out = std::string(word);
      return ConfigValueKind::kBool;
    }
    return number(word, out);
  }

  ConfigValueKind number(std::string_view word, std::string& out) const {
    out.clear();
    for (std::size_t k = 0; k < word.size(); ++k) {
      if (word[k] != '_') {
        out += word[k];
      } else if (k == 0 || k + 1 == word.size() || !std::isdigit(static_cast<unsigned char>(word[k - 1])) ||
                 !std::isdigit(static_cast<unsigned char>(word[k + 1]))) {
        fail(fmt::format("'{}' is not a value ('_' must sit between digits)", word));
      }
    }
    std::string_view digits = out;
    if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);
    std::int64_t integer = 0;
    const auto [iend, ierr] = std::from_chars(digits.data(), digits.data() + digits.size(), integer);
    if (!digits.empty() && ierr == std::errc() && iend == digits.data() + digits.size()) {
      out = std::string(digits);
      return ConfigValueKind::kInteger;
    }
    if (ierr == std::errc::result_out_of_range) fail(fmt::format("integer '{}' is out of range", word));
    // input text: TOML's special floats
    const bool special = digits == "inf" || digits == "-inf" || digits == "nan" || digits == "-nan";
    double real = 0;
    const auto [fend, ferr] = std::from_chars(digits.data(), digits.data() + digits.size(), real);
    const bool has_digit = digits.find_first_of("0123456789") != std::string_view::npos;
    if (special || (has_digit && ferr == std::errc() && fend == digits.data() + digits.size())) {
      out = std::string(digits);
      return ConfigValueKind::kFloat;
    }
    fail(fmt::format("'{}' is not a value (strings need quotes: \"{}\")", word, word));
  }

  std::string quoted() {
    const char quote = s_[i_];
    if (s_.substr(i_, 3) == std::string(3, quote)) fail("multi-line strings are not supported");
    ++i_;
    std::string out;
    while (i_ < s_.size() && s_[i_] != quote) {
      char c = s_[i_++];
      if (c == '\\' && quote == '"') {
        if (i_ == s_.size()) break;
        const char e = s_[i_++];
        switch (e) {
          case '"': c = '"'; break;
          case '\\': c = '\\'; break;
          case 'n': c = '\n'; break;
          case 't': c = '\t'; break;
          case 'r': c = '\r'; break;
          case 'b': c = '\b'; break;
          case 'f': c = '\f'; break;
          default: fail(fmt::format("unsupported escape '\\{}' in a string", e));
        }
      }
      out += c;
    }
    if (i_ == s_.size()) fail("unterminated string");
    ++i_;
    return out;
  }

  std::string_view s_;
  std::size_t i_ = 0;
  const LineReader& reader_;
};

}  // namespace

const char* config_kind_name(ConfigValueKind kind) {
  switch (kind) {
    case ConfigValueKind::kString: return "string";
    case ConfigValueKind::kInteger: return "integer";
    case ConfigValueKind::kFloat: return "float";
    case ConfigValueKind::kBool: return "boolean";
    case ConfigValueKind::kArray: return "array";
  }
  return "value";
}

std::vector<ConfigEntry> read_config_file(const std::string& path) {
  LineReader reader(path);
  std::vector<ConfigEntry> entries;
  std::map<std::pair<std::string, std::string>, std::int64_t> seen;  // (section, key) -> line
  std::string section;
  std::string_view line;
  while (reader.next(line)) {
    LineParser p(line, reader);
    if (p.at_end()) continue;
    if (p.peek('[')) {
      p.expect('[', "'['");
      if (p.peek('[')) p.fail("arrays of tables ([[...]]) are not supported");
      section = p.key();
      p.expect(']', "']'");
      if (!p.at_end()) p.fail("unexpected text after the section header");
      continue;
    }
    ConfigEntry entry;
    entry.section = section;
    entry.line = reader.line_number();
    entry.key = p.key();
    p.expect('=', "'=' after the key");
    p.value(entry);
    if (!p.at_end()) p.fail("unexpected text after the value");
    const auto [it, inserted] = seen.emplace(std::pair{entry.section, entry.key}, entry.line);
    if (!inserted) p.fail(fmt::format("key '{}' is set again (first on line {})", entry.key, it->second));
    entries.push_back(std::move(entry));
  }
  return entries;
}

}  // namespace loom::core
