// Maps sparse original node ids (64-bit integers or strings) to dense ids 0..N-1.
// While parsing, insert() hands out a provisional dense id in first-seen order (O(1), an
// open-addressing table for integers); finish() then renumbers in sorted order (numeric for
// integers, byte-wise for strings), so the dense ids do not depend on the order of the lines:
// dense id i is the i-th smallest original id. apply_order() rewrites provisional ids to final ones.
#pragma once

#include <cstdint>
#include <deque>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace loom::graph::io {

// The final numbering: rank[provisional id] = dense id.
struct DenseOrder {
  std::vector<std::int64_t> rank;
  // True when the original ids were exactly 0..N-1 (numeric ids only), so no map is needed.
  bool identity = false;
};

// Rewrites every provisional id in `ids` to order.rank[id] (in parallel).
void apply_order(const DenseOrder& order, std::span<std::int64_t> ids);

class IntIdRemap {
 public:
  IntIdRemap();
  std::int64_t insert(std::int64_t id) {
    if (2 * (size() + 1) > static_cast<std::int64_t>(slots_.size())) grow();
    std::size_t s = hash(id) & mask_;
    for (;;) {
      Slot& slot = slots_[s];
      if (slot.dense < 0) {
        slot = {id, size()};
        seen_.push_back(id);
        return slot.dense;
      }
      if (slot.key == id) return slot.dense;
      s = (s + 1) & mask_;
    }
  }
  std::int64_t size() const { return static_cast<std::int64_t>(seen_.size()); }
  // Sorts the ids: `sorted_ids` receives the original id of each final dense id.
  DenseOrder finish(std::vector<std::int64_t>& sorted_ids) const;

 private:
  struct Slot {
    std::int64_t key = 0;
    std::int64_t dense = -1;  // -1 = empty
  };
  static std::size_t hash(std::int64_t id) {
    auto x = static_cast<std::uint64_t>(id);
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return static_cast<std::size_t>(x);
  }
  void grow();
  std::vector<Slot> slots_;
  std::size_t mask_ = 0;
  std::vector<std::int64_t> seen_;  // provisional id -> original id
};

class StringIdRemap {
 public:
  std::int64_t insert(std::string_view id);
  std::int64_t size() const { return static_cast<std::int64_t>(names_.size()); }
  // Sorts the names: `sorted_names` receives the name of each final dense id.
  DenseOrder finish(std::vector<std::string>& sorted_names) const;

 private:
  std::deque<std::string> names_;  // provisional id -> name; a deque keeps the views valid
  std::unordered_map<std::string_view, std::int64_t> index_;
};

}  // namespace loom::graph::io
