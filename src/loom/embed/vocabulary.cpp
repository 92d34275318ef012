#include "loom/embed/vocabulary.hpp"

#include <algorithm>
#include <numeric>

#include "loom/core/error.hpp"

namespace loom::embed {

Vocabulary Vocabulary::build(std::vector<std::string> words, std::span<const std::int64_t> counts,
                             std::int64_t min_count, std::vector<std::int32_t>* remap) {
  LOOM_CHECK(words.size() == counts.size(), "vocabulary: {} words but {} counts", words.size(), counts.size());
  std::vector<std::int32_t> order;
  for (std::size_t i = 0; i < words.size(); ++i)
    if (counts[i] >= min_count && counts[i] > 0) order.push_back(static_cast<std::int32_t>(i));
  std::sort(order.begin(), order.end(), [&](std::int32_t a, std::int32_t b) {
    if (counts[a] != counts[b]) return counts[a] > counts[b];
    return words[a] < words[b];
  });
  Vocabulary vocab;
  vocab.words_.reserve(order.size());
  vocab.counts_.reserve(order.size());
  vocab.index_.reserve(order.size());
  if (remap) remap->assign(words.size(), -1);
  for (std::size_t id = 0; id < order.size(); ++id) {
    const auto old = static_cast<std::size_t>(order[id]);
    if (remap) (*remap)[old] = static_cast<std::int32_t>(id);
    vocab.counts_.push_back(counts[old]);
    vocab.words_.push_back(std::move(words[old]));
    const bool inserted = vocab.index_.emplace(vocab.words_.back(), static_cast<std::int32_t>(id)).second;
    LOOM_CHECK(inserted, "vocabulary: word '{}' appears twice", vocab.words_.back());
  }
  vocab.total_ = std::accumulate(vocab.counts_.begin(), vocab.counts_.end(), std::int64_t{0});
  return vocab;
}

std::int32_t Vocabulary::find(std::string_view word) const {
  const auto it = index_.find(absl::string_view(word.data(), word.size()));
  return it == index_.end() ? -1 : it->second;
}

}  // namespace loom::embed
