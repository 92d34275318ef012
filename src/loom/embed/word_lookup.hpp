// Case-insensitive word lookup over the first `limit` rows of an embedding set (rows are sorted by
// frequency, so when two words differ only in case the more frequent one wins). Shared by the
// analogy and similarity evaluations; words are lowercased (ASCII) on both sides.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <absl/container/flat_hash_map.h>

#include "loom/embed/embeddings_io.hpp"

namespace loom::embed {

std::string ascii_lower(std::string_view word);

class WordLookup {
 public:
  WordLookup(const Embeddings& embeddings, std::int64_t limit);
  // Row of `word` (any case), or -1.
  std::int64_t find(std::string_view word) const;

 private:
  absl::flat_hash_map<std::string, std::int64_t> index_;
};

}  // namespace loom::embed
