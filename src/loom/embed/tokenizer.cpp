#include "loom/embed/tokenizer.hpp"

namespace loom::embed {

namespace {

bool is_space(unsigned char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'; }
bool is_ascii_punct(unsigned char c) {
  return (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126);
}
unsigned char lower(unsigned char c) { return (c >= 'A' && c <= 'Z') ? static_cast<unsigned char>(c + 32) : c; }

// Length of a UTF-8 punctuation sequence at the start (1..3 bytes), or 0: U+00A1, U+00AB,
// U+00BB, U+00BF, and the General Punctuation block U+2010..U+205E (dashes, quotes, ellipsis).
std::size_t utf8_punct_prefix(std::string_view s) {
  if (s.size() >= 2 && static_cast<unsigned char>(s[0]) == 0xC2) {
    const auto c = static_cast<unsigned char>(s[1]);
    if (c == 0xA1 || c == 0xAB || c == 0xBB || c == 0xBF) return 2;
  }
  if (s.size() >= 3 && static_cast<unsigned char>(s[0]) == 0xE2) {
    const auto b1 = static_cast<unsigned char>(s[1]);
    const auto b2 = static_cast<unsigned char>(s[2]);
    if ((b1 == 0x80 && b2 >= 0x90) || (b1 == 0x81 && b2 <= 0x9E)) return 3;
  }
  return 0;
}

// Same, for a sequence ending the string.
std::size_t utf8_punct_suffix(std::string_view s) {
  if (s.size() >= 3) {
    const auto n = utf8_punct_prefix(s.substr(s.size() - 3));
    if (n == 3) return 3;
  }
  if (s.size() >= 2 && utf8_punct_prefix(s.substr(s.size() - 2)) == 2) return 2;
  return 0;
}

std::string_view strip_punct(std::string_view word) {
  for (;;) {
    if (word.empty()) return word;
    if (is_ascii_punct(static_cast<unsigned char>(word.front()))) {
      word.remove_prefix(1);
    } else if (const auto n = utf8_punct_prefix(word)) {
      word.remove_prefix(n);
    } else {
      break;
    }
  }
  for (;;) {
    if (word.empty()) return word;
    if (is_ascii_punct(static_cast<unsigned char>(word.back()))) {
      word.remove_suffix(1);
    } else if (const auto n = utf8_punct_suffix(word)) {
      word.remove_suffix(n);
    } else {
      break;
    }
  }
  return word;
}

template <class IsSeparator>
void split(std::string_view text, IsSeparator is_separator, std::vector<std::string_view>& words) {
  const std::size_t n = text.size();
  std::size_t i = 0;
  while (i < n) {
    while (i < n && is_separator(static_cast<unsigned char>(text[i]))) ++i;
    const std::size_t start = i;
    while (i < n && !is_separator(static_cast<unsigned char>(text[i]))) ++i;
    if (i > start) words.push_back(text.substr(start, i - start));
  }
}

}  // namespace

void tokenize(std::string_view line, TokenizeMode mode, std::string& scratch, std::vector<std::string_view>& words) {
  words.clear();
  if (mode == TokenizeMode::kRaw) {
    split(line, is_space, words);
    return;
  }
  scratch.resize(line.size());
  for (std::size_t i = 0; i < line.size(); ++i)
    scratch[i] = static_cast<char>(lower(static_cast<unsigned char>(line[i])));
  const std::string_view text(scratch);
  if (mode == TokenizeMode::kLowerLetters) {
    split(
        text, [](unsigned char c) { return c < 'a' || c > 'z'; }, words);
    return;
  }
  split(text, is_space, words);
  std::size_t kept = 0;
  for (auto word : words) {
    word = strip_punct(word);
    if (!word.empty()) words[kept++] = word;
  }
  words.resize(kept);
}

}  // namespace loom::embed
