// ascending_order(n, key): the positions [0, n) ordered by key(i), ties by position. For code that
// visits what the positions name in the order it lies in a file (rows, neighbour lists), so that
// reads of a mapping larger than the page cache run ahead like a sequential read.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "loom/core/parallel.hpp"

namespace loom::core {

template <class Key>
std::vector<std::int64_t> ascending_order(std::int64_t n, Key&& key) {
  std::vector<std::pair<std::int64_t, std::int64_t>> keyed(static_cast<std::size_t>(n));
  parallel_for(
      n,
      [&](std::int64_t i) {
        keyed[i] = {key(i), i};
      },
      4096);
  std::sort(keyed.begin(), keyed.end());
  std::vector<std::int64_t> order(static_cast<std::size_t>(n));
  for (std::int64_t k = 0; k < n; ++k) order[k] = keyed[k].second;
  return order;
}

}  // namespace loom::core
