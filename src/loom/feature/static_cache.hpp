// StaticCache: the rows of remote vertices a rank keeps for the whole run (SALIENT++), chosen
// once by a CachePolicy and filled by one collective all-to-all exchange through the
// RemoteFetcher (so the fill is counted on comm::Channel::features like every other fetch).
// Rows are stored as float32 or float16, or, from a sparse store, as their entries (never widened). find() maps a
// global id to its cache row, or -1. Immutable after fill(); safe to read from several threads.
#pragma once

#include <cstdint>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "loom/feature/remote_fetcher.hpp"

namespace loom::feature {

class StaticCache {
 public:
  StaticCache() = default;

  // Collective: every rank calls it (with its own ids, possibly none). `ids` are distinct global
  // ids this rank does not own. Throws Error naming `--alpha` when the rows would not fit in the
  // memory available now, with their size.
  static StaticCache fill(const RemoteFetcher& fetcher, std::vector<std::int64_t> ids, format::DType storage);

  std::int64_t size() const { return static_cast<std::int64_t>(ids_.size()); }
  bool empty() const { return ids_.empty(); }
  std::int64_t find(std::int64_t id) const {
    const auto it = slot_.find(id);
    return it == slot_.end() ? -1 : it->second;
  }
  const RowTable& rows() const { return rows_; }
  const std::vector<std::int64_t>& ids() const { return ids_; }
  // The fill: rows fetched, bytes received, seconds.
  const FetchStats& fill_stats() const { return fill_stats_; }

 private:
  std::vector<std::int64_t> ids_;
  absl::flat_hash_map<std::int64_t, std::int64_t> slot_;
  RowTable rows_;
  FetchStats fill_stats_;
};

// Throws Error naming `argument` when `bytes` exceed the memory available (core::available_bytes).
void check_fits_in_memory(std::int64_t bytes, const std::string& what, const std::string& argument);

}  // namespace loom::feature
