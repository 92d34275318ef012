// IdMap: global node id -> compact local id, handing out 0, 1, 2, ... in insertion order.
// Like pyg-lib's mapper it picks its representation once, at construction: a dense vector over
// the whole id space when that space is small or the map is expected to cover a good share of
// it (O(1) with no hashing), otherwise an absl::flat_hash_map. Not thread-safe; one per batch.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include <absl/container/flat_hash_map.h>

namespace loom::sample {

class IdMap {
 public:
  // num_ids: size of the global id space (ids in [0, num_ids)); expected: about how many ids
  // will be inserted (an upper bound is fine).
  IdMap(std::int64_t num_ids, std::int64_t expected) {
    dense_ = num_ids <= kDenseAlways || expected * kDenseShare >= num_ids;
    if (dense_) {
      dense_map_.assign(static_cast<std::size_t>(num_ids), -1);
    } else {
      hash_map_.reserve(static_cast<std::size_t>(expected));
    }
  }

  // The local id of `global`, inserting it with the next id when absent; .second is true when
  // it was inserted.
  std::pair<std::int32_t, bool> insert(std::int64_t global) {
    if (dense_) {
      std::int32_t& slot = dense_map_[static_cast<std::size_t>(global)];
      if (slot >= 0) return {slot, false};
      slot = size_++;
      return {slot, true};
    }
    const auto [it, inserted] = hash_map_.try_emplace(global, size_);
    if (inserted) ++size_;
    return {it->second, inserted};
  }

  // The local id of `global`, or -1 when absent.
  std::int32_t find(std::int64_t global) const {
    if (dense_) return dense_map_[static_cast<std::size_t>(global)];
    const auto it = hash_map_.find(global);
    return it == hash_map_.end() ? -1 : it->second;
  }

  std::int64_t size() const { return size_; }
  bool dense() const { return dense_; }

 private:
  static constexpr std::int64_t kDenseAlways = std::int64_t{1} << 20;  // 4 MiB of int32
  static constexpr std::int64_t kDenseShare = 16;                      // dense when expected >= num_ids / 16

  bool dense_ = true;
  std::int32_t size_ = 0;
  std::vector<std::int32_t> dense_map_;
  absl::flat_hash_map<std::int64_t, std::int32_t> hash_map_;
};

}  // namespace loom::sample
