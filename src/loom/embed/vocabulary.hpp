// The vocabulary of a corpus: words with their counts, sorted by count (descending; ties by word,
// so the order is deterministic), words below a min-count dropped. Id i is row i of every
// embedding matrix trained on it, so the most frequent words come first (what analogy evaluation
// over "the 30,000 most frequent words" relies on). Lookup by word is a hash map.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <absl/container/flat_hash_map.h>
#include <absl/strings/string_view.h>

namespace loom::embed {

class Vocabulary {
 public:
  Vocabulary() = default;

  // Keeps the words with count >= min_count, sorted as above. `remap`, if given, receives for each
  // input position its new id or -1 if dropped. words.size() must equal counts.size().
  static Vocabulary build(std::vector<std::string> words, std::span<const std::int64_t> counts, std::int64_t min_count,
                          std::vector<std::int32_t>* remap = nullptr);

  std::int32_t size() const { return static_cast<std::int32_t>(words_.size()); }
  bool empty() const { return words_.empty(); }
  const std::string& word(std::int32_t id) const { return words_[static_cast<std::size_t>(id)]; }
  const std::vector<std::string>& words() const { return words_; }
  std::int64_t count(std::int32_t id) const { return counts_[static_cast<std::size_t>(id)]; }
  std::span<const std::int64_t> counts() const { return counts_; }
  // Sum of all counts (the number of corpus tokens kept).
  std::int64_t total() const { return total_; }
  // Id of `word`, or -1.
  std::int32_t find(std::string_view word) const;

 private:
  std::vector<std::string> words_;
  std::vector<std::int64_t> counts_;
  std::int64_t total_ = 0;
  absl::flat_hash_map<std::string, std::int32_t> index_;
};

}  // namespace loom::embed
