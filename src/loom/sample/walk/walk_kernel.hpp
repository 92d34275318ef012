// Check-free kernels of one random walk (callers validate first; see random_walk.hpp for the
// contract). walk_one<IdT, kSecondOrder> writes up to `length` nodes and returns the steps taken.
// The node2vec step is exact rejection sampling: proposal uniform over the current row, envelope
// max(1, 1/q); when 1/p exceeds that envelope and the previous node t is a neighbour, the excess
// 1/p - envelope becomes a separate bar of the proposal that returns to t directly (KnightKing's
// outlier folding), so a small p does not inflate the rejection rate. Where the weights leave
// little under the envelope (a leaf reached from its one neighbour with a large p; every neighbour
// far from t with a large q), a step that rejects kMaxRejections proposals draws from the exact
// weights of the row instead: the same distribution (a rejection loop's draw is independent of how
// many proposals it rejected), in O(degree log degree) rather than ~p proposals.
#pragma once

#include <algorithm>
#include <cstdint>

#include "loom/core/rng.hpp"
#include "loom/graph/csr.hpp"

namespace loom::sample::walk::detail {

struct Bias {
  double inv_p = 1.0, inv_q = 1.0;
  double envelope = 1.0;        // max(1, 1/q): the largest weight of a non-return neighbour
  double floor = 1.0;           // min(1, 1/q): weights below it are accepted without a membership test
  double return_in_rect = 1.0;  // min(1/p, envelope): the part of 1/p under the envelope
  double return_excess = 0.0;   // max(0, 1/p - envelope): the folded-out part of 1/p

  static Bias make(double p, double q) {
    Bias b;
    b.inv_p = 1.0 / p;
    b.inv_q = 1.0 / q;
    b.envelope = std::max(1.0, b.inv_q);
    b.floor = std::min(1.0, b.inv_q);
    b.return_in_rect = std::min(b.inv_p, b.envelope);
    b.return_excess = std::max(0.0, b.inv_p - b.envelope);
    return b;
  }
};

template <class IdT>
bool has_edge(const graph::CsrView<IdT>& g, std::int64_t from, std::int64_t to) {
  const auto row = g.neighbors(from);
  return std::binary_search(row.begin(), row.end(), static_cast<IdT>(to));
}

inline constexpr int kMaxRejections = 64;

// The node2vec step drawn from the row's weights directly (the fallback of node2vec_step).
template <class IdT, class Rng>
std::int64_t node2vec_exact_step(const graph::CsrView<IdT>& g, std::int64_t t, std::int64_t v, const Bias& b,
                                 Rng& rng) {
  const auto row = g.neighbors(v);
  const auto weight = [&](std::int64_t x) { return x == t ? b.inv_p : has_edge(g, t, x) ? 1.0 : b.inv_q; };
  double total = 0;
  for (const auto x : row) total += weight(x);
  double y = rng.uniform() * total;
  for (const auto x : row) {
    y -= weight(x);
    if (y < 0) return x;
  }
  return row.back();  // rounding left y just above 0
}

// Next node after v, having come from t, drawn with probability proportional to w(x). Rng is
// core::Rng, or in tests a generator that replays chosen draws (uniform() in [0, 1), below(n)).
template <class IdT, class Rng>
std::int64_t node2vec_step(const graph::CsrView<IdT>& g, std::int64_t t, std::int64_t v, const Bias& b, Rng& rng) {
  const auto row = g.neighbors(v);
  const auto deg = static_cast<std::uint64_t>(row.size());
  const double rect = static_cast<double>(deg) * b.envelope;
  const double excess = (b.return_excess > 0.0 && has_edge(g, v, t)) ? b.return_excess : 0.0;
  for (int proposals = 0; proposals < kMaxRejections; ++proposals) {
    if (excess > 0.0 && rng.uniform() * (rect + excess) >= rect) return t;
    const std::int64_t x = row[rng.below(deg)];
    const double y = rng.uniform() * b.envelope;
    if (x == t) {
      if (y < b.return_in_rect) return x;
      continue;
    }
    if (y < b.floor) return x;
    const double w = has_edge(g, t, x) ? 1.0 : b.inv_q;
    if (y < w) return x;
  }
  return node2vec_exact_step(g, t, v, b, rng);
}

template <class IdT, bool kSecondOrder>
std::int64_t walk_one(const graph::CsrView<IdT>& g, std::int64_t start, std::int64_t length, const Bias& bias,
                      core::Rng& rng, std::int32_t* out) {
  out[0] = static_cast<std::int32_t>(start);
  std::int64_t prev = -1, cur = start, i = 1;
  for (; i < length; ++i) {
    const std::int64_t deg = g.degree(cur);
    if (deg == 0) break;
    std::int64_t next;
    if constexpr (kSecondOrder) {
      next = prev < 0 ? static_cast<std::int64_t>(g.neighbors(cur)[rng.below(static_cast<std::uint64_t>(deg))])
                      : node2vec_step(g, prev, cur, bias, rng);
    } else {
      next = g.neighbors(cur)[rng.below(static_cast<std::uint64_t>(deg))];
    }
    out[i] = static_cast<std::int32_t>(next);
    prev = cur;
    cur = next;
  }
  std::fill(out + i, out + length, std::int32_t{-1});
  return i - 1;
}

}  // namespace loom::sample::walk::detail
