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

#include "loom/core/enum_names.hpp"

namespace loom::embed {

enum class TokenizeMode { kLowerLetters, kLower, kRaw };
inline constexpr core::EnumNames<TokenizeMode, 3> kTokenizeModeNames{
    {{"lower-letters", TokenizeMode::kLowerLetters}, {"lower", TokenizeMode::kLower}, {"raw", TokenizeMode::kRaw}}};
inline std::string tokenize_mode_name(TokenizeMode mode) { return core::enum_name(kTokenizeModeNames, mode); }

void tokenize(std::string_view line, TokenizeMode mode, std::string& scratch, std::vector<std::string_view>& words);

}  // namespace loom::embed
