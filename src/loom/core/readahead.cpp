#include "loom/core/readahead.hpp"

#include <algorithm>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace loom::core {

#if defined(__linux__)

namespace {

// madvise over the pages that hold [begin, end) of `data`.
void advise_pages(const void* data, std::int64_t begin, std::int64_t end, int advice) {
  static const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  const auto base = reinterpret_cast<std::uintptr_t>(data);
  const std::uintptr_t first = (base + static_cast<std::uintptr_t>(begin)) & ~(page - 1);
  const std::uintptr_t last = base + static_cast<std::uintptr_t>(end);
  madvise(reinterpret_cast<void*>(first), last - first, advice);  // advice only: a failure changes nothing
}

}  // namespace

void advise_random(const void* data, std::int64_t bytes) {
  if (data != nullptr && bytes > 0) advise_pages(data, 0, bytes, MADV_RANDOM);
}

void will_need(const void* data, std::span<const ByteSpan> spans) {
  std::size_t i = 0;
  while (i < spans.size()) {
    const std::int64_t begin = spans[i].first;
    std::int64_t end = spans[i].second;
    for (++i; i < spans.size() && spans[i].first - end < kReadMergeGap; ++i) end = std::max(end, spans[i].second);
    if (end > begin) advise_pages(data, begin, end, MADV_WILLNEED);
  }
}

#else

void advise_random(const void*, std::int64_t) {}
void will_need(const void*, std::span<const ByteSpan>) {}

#endif

SweepAhead::SweepAhead(const void* data, std::vector<ByteSpan> spans, std::int64_t window_bytes)
    : data_(data), spans_(std::move(spans)), starts_{0} {
  std::int64_t read_bytes = 0, last_end = -1;
  for (std::size_t k = 0; k < spans_.size(); ++k) {
    const ByteSpan& span = spans_[k];
    const bool merged = last_end >= 0 && span.first - last_end < kReadMergeGap;
    read_bytes += std::max<std::int64_t>(0, span.second - (merged ? last_end : span.first));
    last_end = std::max(last_end, span.second);
    if (read_bytes >= window_bytes) {
      starts_.push_back(static_cast<std::int64_t>(k) + 1);
      read_bytes = 0;
      last_end = -1;
    }
  }
  if (starts_.back() != static_cast<std::int64_t>(spans_.size()))
    starts_.push_back(static_cast<std::int64_t>(spans_.size()));
}

void SweepAhead::request(std::int64_t w) const {
  if (w >= windows()) return;
  will_need(data_,
            std::span(spans_).subspan(static_cast<std::size_t>(begin(w)), static_cast<std::size_t>(end(w) - begin(w))));
}

}  // namespace loom::core
