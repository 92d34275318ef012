// Seeded, splittable random numbers. Rng is xoshiro256** seeded through SplitMix64; split(k)
// derives an independent child stream from (this stream's seed, k) without advancing the
// parent, so work can be seeded per block (per batch, per walk, per node range) and give the
// same output at any thread count. Bounded draws are unbiased (Lemire's method).
// One Rng per block of work: an Rng is not thread-safe.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

namespace loom::core {

inline std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Mixes several integers into one seed (order matters).
inline std::uint64_t mix_seed(std::uint64_t a, std::uint64_t b) {
  std::uint64_t s = a ^ (b * 0xd1342543de82ef95ULL + 0x2545f4914f6cdd1dULL);
  splitmix64(s);
  return splitmix64(s);
}

class Rng {
 public:
  using result_type = std::uint64_t;

  explicit Rng(std::uint64_t seed = 0) : seed_(seed) {
    std::uint64_t sm = seed;
    for (auto& word : s_) word = splitmix64(sm);
  }

  // Child stream number `stream`; the same (seed, stream) always gives the same child.
  Rng split(std::uint64_t stream) const { return Rng(mix_seed(seed_, stream)); }
  template <class... Ts>
  Rng split(std::uint64_t first, Ts... rest) const {
    return split(first).split(static_cast<std::uint64_t>(rest)...);
  }

  std::uint64_t seed() const { return seed_; }

  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return std::numeric_limits<result_type>::max(); }

  result_type operator()() { return next(); }

  std::uint64_t next() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  // Uniform integer in [0, n), n > 0, without modulo bias.
  std::uint64_t below(std::uint64_t n) {
    __uint128_t m = static_cast<__uint128_t>(next()) * n;
    auto low = static_cast<std::uint64_t>(m);
    if (low < n) {
      const std::uint64_t threshold = -n % n;
      while (low < threshold) {
        m = static_cast<__uint128_t>(next()) * n;
        low = static_cast<std::uint64_t>(m);
      }
    }
    return static_cast<std::uint64_t>(m >> 64);
  }

  // Uniform double in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  float uniform_float() { return static_cast<float>(next() >> 40) * 0x1.0p-24f; }

  // Standard normal (Box-Muller; one of the pair is discarded to stay stateless).
  double normal() {
    double u1 = uniform();
    while (u1 <= 0.0) u1 = uniform();
    const double u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t seed_;
  std::uint64_t s_[4];
};

// Fisher-Yates shuffle with an Rng.
template <class It>
void shuffle(It first, It last, Rng& rng) {
  const auto n = static_cast<std::uint64_t>(last - first);
  for (std::uint64_t i = n; i > 1; --i) {
    const auto j = rng.below(i);
    std::swap(first[i - 1], first[j]);
  }
}

}  // namespace loom::core
