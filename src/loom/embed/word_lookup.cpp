#include "loom/embed/word_lookup.hpp"

#include <algorithm>

namespace loom::embed {

std::string ascii_lower(std::string_view word) {
  std::string out(word);
  for (auto& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
  return out;
}

WordLookup::WordLookup(const Embeddings& embeddings, std::int64_t limit) {
  const std::int64_t n = std::min(limit, embeddings.size());
  index_.reserve(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i)
    index_.try_emplace(ascii_lower(embeddings.words[static_cast<std::size_t>(i)]), i);
}

std::int64_t WordLookup::find(std::string_view word) const {
  const std::string key = ascii_lower(word);
  const auto it = index_.find(key);
  return it == index_.end() ? -1 : it->second;
}

}  // namespace loom::embed
