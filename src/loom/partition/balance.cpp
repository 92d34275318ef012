#include "loom/partition/balance.hpp"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "loom/core/error.hpp"
#include "loom/core/log.hpp"
#include "loom/core/parallel.hpp"

namespace loom::partition {

namespace {

std::int64_t cap(double total, int num_parts) {
  return static_cast<std::int64_t>(std::ceil(kBalanceSlack * total / num_parts));
}

// A node that could leave a part above its caps: where it would go and what the cut gains.
struct Move {
  std::int64_t gain = 0;  // neighbours in the target minus neighbours in its part
  std::int64_t node = 0;
  std::int32_t target = -1;
};

constexpr int kMaxRounds = 16;

}  // namespace

BalanceLoads::BalanceLoads(const graph::GraphStore& store, int num_parts)
    : indptr_(store.csr().indptr()),
      is_train_(static_cast<std::size_t>(store.num_nodes()), 0),
      nodes_(static_cast<std::size_t>(num_parts), 0),
      degree_(nodes_),
      train_(nodes_) {
  std::int64_t train_total = 0;
  if (store.has_split("train"))
    for (const auto v : store.split("train")) train_total += is_train_[v] ? 0 : (is_train_[v] = 1);
  cap_nodes_ = cap(static_cast<double>(store.num_nodes()), num_parts);
  cap_degree_ = cap(static_cast<double>(indptr_.back()), num_parts) + 1;
  cap_train_ = cap(static_cast<double>(train_total), num_parts) + 1;
}

void BalanceLoads::change(int part, const Weight& w, std::int64_t sign) {
  const auto p = static_cast<std::size_t>(part);
  nodes_[p] += sign * w.nodes;
  degree_[p] += sign * w.degree;
  train_[p] += sign * w.train;
}

bool BalanceLoads::fits(int part, const Weight& w) const {
  const auto p = static_cast<std::size_t>(part);
  return nodes_[p] + w.nodes <= cap_nodes_ && degree_[p] + w.degree <= cap_degree_ &&
         (w.train == 0 || train_[p] + w.train <= cap_train_);
}

bool BalanceLoads::relieved_by(int part, std::int64_t v, bool train_only) const {
  const auto p = static_cast<std::size_t>(part);
  if (train_[p] > cap_train_ && is_train(v)) return true;
  return !train_only && (nodes_[p] > cap_nodes_ || (degree_[p] > cap_degree_ && degree(v) > 0));
}

bool BalanceLoads::fits_train(int part) const { return train_[static_cast<std::size_t>(part)] + 1 <= cap_train_; }

bool BalanceLoads::within_caps(int part) const {
  const auto p = static_cast<std::size_t>(part);
  return nodes_[p] <= cap_nodes_ && degree_[p] <= cap_degree_ && train_[p] <= cap_train_;
}

namespace {

// One round of moves: every node that relieves its part (of the training cap alone with
// train_only), best target first; returns how many moved.
std::int64_t move_round(const graph::GraphStore& store, BalanceLoads& loads, std::vector<std::int32_t>& parts,
                        int num_parts, bool train_only) {
  const std::int64_t n = store.num_nodes();
  const auto target_fits = [&](int q, std::int64_t v) { return train_only ? loads.fits_train(q) : loads.fits(q, v); };
  // Every node that would relieve its part, with its best part among those with room for it now
  // (most neighbours there; ties to the part with fewer nodes, then the lower id).
  constexpr std::int64_t kBlock = 1 << 14;
  const std::int64_t blocks = (n + kBlock - 1) / kBlock;
  std::vector<std::vector<Move>> found(static_cast<std::size_t>(blocks));
  store.csr().visit([&](auto view) {
    core::parallel_for(
        blocks,
        [&](std::int64_t b) {
          std::vector<std::int64_t> neighbours(static_cast<std::size_t>(num_parts));
          for (std::int64_t v = b * kBlock; v < std::min(n, (b + 1) * kBlock); ++v) {
            const int p = parts[v];
            if (!loads.relieved_by(p, v, train_only)) continue;
            std::fill(neighbours.begin(), neighbours.end(), 0);
            for (const auto u : view.neighbors(v))
              if (u != v) ++neighbours[parts[u]];
            int best = -1;
            for (int q = 0; q < num_parts; ++q) {
              if (q == p || !target_fits(q, v)) continue;
              if (best < 0 || neighbours[q] > neighbours[best] ||
                  (neighbours[q] == neighbours[best] && loads.nodes(q) < loads.nodes(best)))
                best = q;
            }
            if (best >= 0) found[b].push_back({neighbours[best] - neighbours[p], v, best});
          }
        },
        1);
  });
  std::vector<Move> moves;
  for (auto& block : found) moves.insert(moves.end(), block.begin(), block.end());
  std::sort(moves.begin(), moves.end(),
            [](const Move& a, const Move& b) { return std::tie(b.gain, a.node) < std::tie(a.gain, b.node); });
  std::int64_t moved = 0;
  for (const Move& m : moves) {
    const int p = parts[m.node];
    if (!loads.relieved_by(p, m.node, train_only) || !target_fits(m.target, m.node)) continue;
    loads.remove(p, m.node);
    loads.add(m.target, m.node);
    parts[m.node] = m.target;
    ++moved;
  }
  return moved;
}

}  // namespace

std::int64_t rebalance(const graph::GraphStore& store, std::vector<std::int32_t>& parts, int num_parts) {
  const std::int64_t n = store.num_nodes();
  LOOM_CHECK(static_cast<std::int64_t>(parts.size()) == n, "rebalance: {} part ids for {} nodes", parts.size(), n);
  BalanceLoads loads(store, num_parts);
  for (std::int64_t v = 0; v < n; ++v) loads.add(parts[v], v);
  const auto balanced = [&] {
    for (int p = 0; p < num_parts; ++p)
      if (!loads.within_caps(p)) return false;
    return true;
  };
  std::int64_t moved = 0;
  for (const bool train_only : {true, false}) {
    for (int round = 0; round < kMaxRounds && !balanced(); ++round) {
      const std::int64_t now = move_round(store, loads, parts, num_parts, train_only);
      moved += now;
      if (now == 0) break;
    }
  }
  for (int p = 0; p < num_parts; ++p)
    if (!loads.within_caps(p)) spdlog::warn("rebalance: part {} stays above a balance cap (no node could move)", p);
  return moved;
}

}  // namespace loom::partition
