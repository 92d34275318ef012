// IdMap: global node id -> compact local id, handing out 0, 1, 2, ... in insertion order, for one
// batch at a time on one thread. begin() starts a batch and picks the representation: a dense
// table over the whole id space when that space is small or the batch is expected to cover a good
// share of it (pyg-lib's choice), otherwise an absl::flat_hash_map. The dense table is kept from
// batch to batch: each slot holds (batch stamp, local id), so a new batch costs one increment, not
// a pass over the table, and a thread sampling batch after batch allocates nothing. prefetch()
// asks for the slot of an id the caller will insert soon, so many of those cache misses overlap.
// Not thread-safe: one per thread.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "loom/core/huge_page_array.hpp"

namespace loom::sample {

class IdMap {
 public:
  IdMap() = default;
  // Starts a new, empty map. num_ids: size of the global id space (ids in [0, num_ids));
  // expected: about how many ids will be inserted (an upper bound is fine).
  void begin(std::int64_t num_ids, std::int64_t expected) {
    size_ = 0;
    dense_ = num_ids <= kDenseAlways || expected * kDenseShare >= num_ids;
    if (!dense_) {
      hash_map_.clear();
      hash_map_.reserve(static_cast<std::size_t>(expected));
      return;
    }
    if (static_cast<std::int64_t>(slots_.size()) < num_ids || ++stamp_ == 0) {
      slots_ = core::HugePageArray<std::uint64_t>(std::max(static_cast<std::size_t>(num_ids), slots_.size()));
      stamp_ = 1;
    }
  }

  // The local id of `global`, inserting it with the next id when absent; .second is true when
  // it was inserted.
  std::pair<std::int32_t, bool> insert(std::int64_t global) {
    if (dense_) {
      std::uint64_t& slot = slots_[static_cast<std::size_t>(global)];
      if (slot >> 32 == stamp_) return {static_cast<std::int32_t>(static_cast<std::uint32_t>(slot)), false};
      slot = std::uint64_t{stamp_} << 32 | static_cast<std::uint32_t>(size_);
      return {size_++, true};
    }
    const auto [it, inserted] = hash_map_.try_emplace(global, size_);
    if (inserted) ++size_;
    return {it->second, inserted};
  }

  // The local id of `global`, or -1 when absent.
  std::int32_t find(std::int64_t global) const {
    if (dense_) {
      const std::uint64_t slot = slots_[static_cast<std::size_t>(global)];
      return slot >> 32 == stamp_ ? static_cast<std::int32_t>(static_cast<std::uint32_t>(slot)) : -1;
    }
    const auto it = hash_map_.find(global);
    return it == hash_map_.end() ? -1 : it->second;
  }

  // A hint: `global` will be inserted or looked up soon.
  void prefetch(std::int64_t global) const {
    if (dense_) {
      __builtin_prefetch(slots_.data() + global, 1);
    } else {
      hash_map_.prefetch(global);
    }
  }

  std::int64_t size() const { return size_; }
  bool dense() const { return dense_; }

 private:
  static constexpr std::int64_t kDenseAlways = std::int64_t{1} << 20;  // 8 MiB of slots
  static constexpr std::int64_t kDenseShare = 16;                      // dense when expected >= num_ids / 16

  bool dense_ = true;
  std::int32_t size_ = 0;
  std::uint32_t stamp_ = 0;                   // the current batch's stamp; slots of other stamps are empty
  core::HugePageArray<std::uint64_t> slots_;  // dense: stamp << 32 | local id, on huge pages (read at random)
  absl::flat_hash_map<std::int64_t, std::int32_t> hash_map_;
};

}  // namespace loom::sample
