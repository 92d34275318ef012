// PartitionBook: which part owns a global node id, and where. After relabelling, part p owns
// the contiguous global id range [offset(p), offset(p+1)); local row r of part p is global id
// offset(p) + r. owner() is a binary search over the K+1 offsets (O(log K)); local() and
// global() are arithmetic. Parts may be empty (equal consecutive offsets). Samplers, feature
// fetch, caches and full-graph exchange share this one book; it is saved as "node_offsets"
// in a partitioned store's meta.json. Immutable after construction; safe to share across threads.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace loom::partition {

struct IdRange {
  std::int64_t begin = 0, end = 0;  // [begin, end)
  std::int64_t size() const { return end - begin; }
  bool contains(std::int64_t id) const { return id >= begin && id < end; }
};

class PartitionBook {
 public:
  PartitionBook() = default;
  // `offsets` has K+1 entries: 0, non-decreasing, last = number of nodes. Throws Error otherwise.
  explicit PartitionBook(std::vector<std::int64_t> offsets);

  int num_parts() const { return static_cast<int>(offsets_.size()) - 1; }
  std::int64_t num_nodes() const { return offsets_.back(); }
  std::span<const std::int64_t> offsets() const { return offsets_; }
  IdRange range(int part) const { return {offsets_[part], offsets_[part + 1]}; }

  // Part owning `global` (0 <= global < num_nodes(); not checked).
  int owner(std::int64_t global) const;
  std::int64_t local(std::int64_t global) const { return global - offsets_[owner(global)]; }
  std::int64_t global(int part, std::int64_t local) const { return offsets_[part] + local; }

  nlohmann::json to_json() const { return offsets_; }
  // Reads the offsets array; `where` names the file for error messages.
  static PartitionBook from_json(const nlohmann::json& offsets, const std::string& where);

  bool operator==(const PartitionBook& other) const = default;

 private:
  std::vector<std::int64_t> offsets_{0};
};

}  // namespace loom::partition
