#include "loom/core/json_number.hpp"
#include "loom/partition/partition_book.hpp"

#include <algorithm>

#include "loom/core/error.hpp"

namespace loom::partition {

PartitionBook::PartitionBook(std::vector<std::int64_t> offsets) : offsets_(std::move(offsets)) {
  LOOM_CHECK(offsets_.size() >= 2, "partition book: needs at least 2 offsets (one part), got {}", offsets_.size());
  LOOM_CHECK(offsets_.front() == 0, "partition book: first offset must be 0, got {}", offsets_.front());
  for (std::size_t p = 1; p < offsets_.size(); ++p)
    LOOM_CHECK(offsets_[p] >= offsets_[p - 1], "partition book: offsets decrease at part {} ({} < {})", p - 1,
               offsets_[p], offsets_[p - 1]);
}

int PartitionBook::owner(std::int64_t global) const {
  // The first offset greater than `global` ends the owning part; equal offsets (empty parts)
  // are skipped because upper_bound passes all of them.
  const auto it = std::upper_bound(offsets_.begin() + 1, offsets_.end(), global);
  return static_cast<int>(it - offsets_.begin()) - 1;
}

PartitionBook PartitionBook::from_json(const nlohmann::json& offsets, const std::string& where) {
  if (!offsets.is_array()) throw Error::in_file(where, 0, "node_offsets must be an array of integers");
  std::vector<std::int64_t> values;
  for (const auto& v : offsets) {
    if (!v.is_number_integer()) throw Error::in_file(where, 0, "node_offsets must be an array of integers");
    values.push_back(core::json_int<std::int64_t>(v, where));
  }
  try {
    return PartitionBook(std::move(values));
  } catch (const Error& e) {
    throw Error::in_file(where, 0, e.message());
  }
}

}  // namespace loom::partition
