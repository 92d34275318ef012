// The balance constraints every Loom partitioner keeps, those METIS balances (as DistDGL and
// SALIENT++ do): each part holds at most kBalanceSlack (1.05) x the per-part share of nodes, of
// stored edges (the nodes' degrees) and of training nodes, each cap rounded up (the edge and
// training caps plus one). BalanceLoads tracks the parts' loads against those caps as nodes are
// placed and moved. rebalance() repairs a partition that breaks them (PT-Scotch balances a
// single vertex weight): it moves nodes out of the parts above a cap into parts with room,
// those with the most neighbours there first, so the edge cut grows as little as it can. Training
// nodes go first, to parts with room for training nodes even where those are full of nodes (a
// part can be at its node cap and short of training nodes); then nodes and edges are brought
// within their caps by moves that keep every cap, which leave the training balance as it is.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "loom/graph/store.hpp"

namespace loom::partition {

inline constexpr double kBalanceSlack = 1.05;

class BalanceLoads {
 public:
  // What a node, or a group of nodes, adds to a part's loads.
  struct Weight {
    std::int64_t nodes = 0, degree = 0, train = 0;
    Weight& operator+=(const Weight& w) {
      nodes += w.nodes;
      degree += w.degree;
      train += w.train;
      return *this;
    }
  };

  // Caps from the store's totals for num_parts parts; every load starts at zero.
  BalanceLoads(const graph::GraphStore& store, int num_parts);

  std::int64_t degree(std::int64_t v) const { return indptr_[v + 1] - indptr_[v]; }
  bool is_train(std::int64_t v) const { return is_train_[static_cast<std::size_t>(v)] != 0; }
  Weight weight(std::int64_t v) const { return {1, degree(v), static_cast<std::int64_t>(is_train(v))}; }
  std::int64_t nodes(int part) const { return nodes_[static_cast<std::size_t>(part)]; }

  void add(int part, std::int64_t v) { change(part, weight(v), +1); }
  void remove(int part, std::int64_t v) { change(part, weight(v), -1); }
  void add(int part, const Weight& w) { change(part, w, +1); }
  // Whether `part` stays within every cap with v (or nodes weighing w) added.
  bool fits(int part, std::int64_t v) const { return fits(part, weight(v)); }
  bool fits(int part, const Weight& w) const;
  // Whether `part` is above some cap that taking v out of it would lower (only the training
  // nodes' cap with train_only).
  bool relieved_by(int part, std::int64_t v, bool train_only = false) const;
  // Whether `part` has room for one more training node.
  bool fits_train(int part) const;
  bool within_caps(int part) const;

 private:
  void change(int part, const Weight& w, std::int64_t sign);

  std::span<const std::int64_t> indptr_;
  std::vector<char> is_train_;
  std::vector<std::int64_t> nodes_, degree_, train_;
  std::int64_t cap_nodes_ = 0, cap_degree_ = 0, cap_train_ = 0;
};

// Moves nodes until every part is within the caps (or no move is left that helps); returns the
// number of nodes moved. Deterministic for a given store and parts at any thread count.
std::int64_t rebalance(const graph::GraphStore& store, std::vector<std::int32_t>& parts, int num_parts);

}  // namespace loom::partition
