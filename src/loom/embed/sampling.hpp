// The two frequency-driven samplers of SGNS, built once from vocabulary counts:
//  - Subsampler: word2vec.c's frequent-word subsampling. Word w with count c among T tokens is
//    kept with probability min(1, (sqrt(c / (s T)) + 1) (s T) / c) for sample rate s (s <= 0 keeps
//    every word); stored as a 32-bit threshold so keep() is one compare.
//  - NegativeSampler: draws ids from the unigram distribution raised to 0.75 (word2vec.c's
//    negative-sampling table). Exact, O(1) per draw through an alias table of V entries instead of
//    word2vec.c's 1e8-entry table, so it stays in cache.
// Both are read-only after construction and shared by all threads; the caller brings its Rng.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "loom/core/rng.hpp"

namespace loom::embed {

class Subsampler {
 public:
  Subsampler(std::span<const std::int64_t> counts, double sample);
  bool keep(std::int32_t id, core::Rng& rng) const {
    return static_cast<std::uint32_t>(rng.next() >> 32) < threshold_[static_cast<std::size_t>(id)];
  }
  // Probability that `id` is kept.
  double keep_probability(std::int32_t id) const;

 private:
  std::vector<std::uint64_t> threshold_;  // keep if a uniform 32-bit draw < threshold (up to 2^32)
};

class NegativeSampler {
 public:
  explicit NegativeSampler(std::span<const std::int64_t> counts, double power = 0.75);
  std::int32_t operator()(core::Rng& rng) const {
    const auto slot = rng.below(size_);
    const auto coin = static_cast<std::uint32_t>(rng.next() >> 32);
    return coin < accept_[slot] ? static_cast<std::int32_t>(slot) : alias_[slot];
  }
  // The probability of drawing `id` (for tests).
  double probability(std::int32_t id) const { return probability_[static_cast<std::size_t>(id)]; }

 private:
  std::uint64_t size_ = 0;
  std::vector<std::uint64_t> accept_;  // keep the slot if a uniform 32-bit draw < accept (up to 2^32)
  std::vector<std::int32_t> alias_;
  std::vector<double> probability_;
};

}  // namespace loom::embed
