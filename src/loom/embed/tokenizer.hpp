// Splits a line of text into words for Word2Vec. Three modes:
//   lower-letters  lowercase ASCII letters; every other byte (digits, punctuation, UTF-8) separates words
//   lower          lowercase ASCII, split on whitespace, strip punctuation (ASCII and common UTF-8
//                  quotes/dashes) from both ends of each word; words that become empty are dropped
//   raw            split on whitespace, keep words as they are
// The returned views point into `scratch` (lower modes) or into `line` (raw); they stay valid until
// the next call with the same scratch or line.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace loom::embed {

enum class TokenizeMode { kLowerLetters, kLower, kRaw };

// "lower-letters" | "lower" | "raw"; throws Error::in_argument("--tokenize", ...) otherwise.
TokenizeMode parse_tokenize_mode(const std::string& name);
std::string tokenize_mode_name(TokenizeMode mode);

void tokenize(std::string_view line, TokenizeMode mode, std::string& scratch, std::vector<std::string_view>& words);

}  // namespace loom::embed
