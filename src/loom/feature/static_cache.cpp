#include "loom/feature/static_cache.hpp"

#include <numeric>
#include <string>

#include <fmt/format.h>

#include "loom/core/error.hpp"
#include "loom/core/memory.hpp"
#include "loom/core/parallel.hpp"

namespace loom::feature {

void check_fits_in_memory(std::int64_t bytes, const std::string& what, const std::string& argument) {
  const std::int64_t available = core::available_bytes();
  if (available >= 0 && bytes > available)
    throw Error::in_argument(argument, fmt::format("{} needs {} but only {} of memory is available", what,
                                                   core::human_bytes(static_cast<double>(bytes)),
                                                   core::human_bytes(static_cast<double>(available))));
}

namespace {

// The bytes a cache of `rows` rows will hold while it fills: dense, float32 rows while they are
// converted to `storage`; sparse, the CSR of rows as full as this rank's own on average.
std::int64_t fill_bytes(const RowTable& local, std::int64_t rows, format::DType storage) {
  if (local.is_sparse()) {
    return rows * (8 + local.entries_per_row() * 8);  // offsets, columns and float32 values
  }
  return rows * local.dim() * (4 + (storage == format::DType::kFloat16 ? 2 : 0));
}

}  // namespace

StaticCache StaticCache::fill(const RemoteFetcher& fetcher, std::vector<std::int64_t> ids, format::DType storage) {
  const std::int64_t dim = fetcher.dim();
  const auto rows = static_cast<std::int64_t>(ids.size());
  std::exception_ptr too_big;
  try {
    check_fits_in_memory(fill_bytes(fetcher.local(), rows, storage),
                         fmt::format("a cache of {} rows x {} features", rows, dim), "--alpha");
  } catch (...) {
    too_big = std::current_exception();
    ids.clear();  // still take part in the collective exchange, with nothing to fetch
  }
  StaticCache cache;
  if (fetcher.local().is_sparse()) {
    std::vector<std::int64_t> positions(ids.size());
    std::iota(positions.begin(), positions.end(), 0);
    graph::SparseRows sparse;
    cache.fill_stats_ = fetcher.fetch_remote_sparse(ids, positions, sparse);
    if (too_big) std::rethrow_exception(too_big);
    cache.rows_ = RowTable::owned(std::move(sparse), dim);
  } else {
    std::vector<float> values = fetcher.fetch_rows(ids, &cache.fill_stats_);
    if (too_big) std::rethrow_exception(too_big);
    if (storage == format::DType::kFloat16) {
      std::vector<format::Half> half(values.size());
      core::parallel_for(
          static_cast<std::int64_t>(values.size()), [&](std::int64_t i) { half[i] = format::float_to_half(values[i]); },
          1 << 16);
      cache.rows_ = RowTable::owned(std::move(half), dim);
    } else {
      cache.rows_ = RowTable::owned(std::move(values), dim);
    }
  }
  cache.slot_.reserve(ids.size());
  for (std::int64_t i = 0; i < rows; ++i) cache.slot_.emplace(ids[i], i);
  cache.ids_ = std::move(ids);
  return cache;
}

}  // namespace loom::feature
