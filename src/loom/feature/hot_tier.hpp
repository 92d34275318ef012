// HotTier (SALIENT++ storage tiers): which of this rank's own feature rows a faster tier (device
// memory under `loom train --device cuda`) holds. Rows are ranked hottest first by a score (VIP:
// -log(1 - VIP) of each own row for this rank's training nodes) and the first `capacity` rows
// form the tier, in that order: slot 0 is the hottest row. The rest stay in host memory.
// Torch-free; train/DeviceFeatures keeps the rows themselves.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace loom::feature {

class HotTier {
 public:
  HotTier() = default;  // holds no row
  // `score[r]` ranks own row r (higher = hotter; ties keep row order); keeps min(capacity, rows).
  static HotTier hottest(std::span<const double> score, std::int64_t capacity);

  std::int64_t size() const { return static_cast<std::int64_t>(rows_.size()); }
  bool empty() const { return rows_.empty(); }
  // Own rows ranked (the length of the score); 0 for an empty tier.
  std::int64_t num_rows() const { return static_cast<std::int64_t>(slot_.size()); }
  // The tier slot of own row `local_row`, or -1 when the tier does not hold it.
  std::int64_t slot(std::int64_t local_row) const { return slot_.empty() ? -1 : slot_[local_row]; }
  // Asks the cache for slot(local_row) ahead of the lookup (a batch looks rows up at random).
  void prefetch_slot(std::int64_t local_row) const {
    if (!slot_.empty()) __builtin_prefetch(slot_.data() + local_row);
  }
  // Own rows in slot order (hottest first).
  std::span<const std::int64_t> rows() const { return rows_; }
  // The scores of the tier's rows and of all own rows, summed. With VIP's scores (expected
  // reads per row), their ratio is the share of own-row reads the tier is expected to serve.
  double tier_score() const { return tier_score_; }
  double total_score() const { return total_score_; }

 private:
  std::vector<std::int64_t> rows_;
  std::vector<std::int64_t> slot_;  // per own row; empty when the tier is empty
  double tier_score_ = 0, total_score_ = 0;
};

// How a gather split a batch's rows between the hot tier, the own rows the device reads in place
// (mapped: FeatureSource's own_rows_mapped) and the host: batch row positions[i] is tier slot
// slots[i]; batch row mapped_positions[m] is own row mapped_rows[m]; batch row staged[j] is row j
// of what the gather wrote (when the device serves none of the batch's rows, every row is staged
// in order and `staged` stays empty).
struct TierRows {
  std::vector<std::int64_t> positions, slots, staged, mapped_positions, mapped_rows;
  void clear() { positions.clear(), slots.clear(), staged.clear(), mapped_positions.clear(), mapped_rows.clear(); }
  bool split() const { return !positions.empty() || !mapped_positions.empty(); }
};

}  // namespace loom::feature
