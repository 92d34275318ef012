// Reading a mapped file larger than the page cache in the order Loom chooses rather than by the
// kernel's readahead guesses: advise_random() turns a mapping's fault readahead off (a fault then
// reads its own page, not megabytes around it), and will_need() asks the kernel to read byte spans
// of the mapping now, asynchronously and many at once, merging spans less than kReadMergeGap
// apart into one read (one random read costs about as much as that many bytes read in order).
// SweepAhead cuts a sweep over ascending spans into windows, so that a reader asks for the next
// window while it reads this one: the disk stays busy and no more is asked for than the page cache
// holds. Linux madvise; elsewhere the advice does nothing.
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace loom::core {

inline constexpr std::int64_t kReadMergeGap = std::int64_t{64} << 10;

// [data, data + bytes) is (part of) a file mapping.
void advise_random(const void* data, std::int64_t bytes);

// Byte spans [first, second) from `data`, ascending by first.
using ByteSpan = std::pair<std::int64_t, std::int64_t>;
void will_need(const void* data, std::span<const ByteSpan> spans);

// A sweep over spans[k] (ascending) of `data` in windows of about `window_bytes` of reads: window
// w is positions [begin(w), end(w)); request(w) asks the kernel for its spans (nothing past the
// last window). Read window w after request(w + 1).
class SweepAhead {
 public:
  SweepAhead(const void* data, std::vector<ByteSpan> spans, std::int64_t window_bytes);
  std::int64_t windows() const { return static_cast<std::int64_t>(starts_.size()) - 1; }
  std::int64_t begin(std::int64_t w) const { return starts_[static_cast<std::size_t>(w)]; }
  std::int64_t end(std::int64_t w) const { return starts_[static_cast<std::size_t>(w) + 1]; }
  void request(std::int64_t w) const;

 private:
  const void* data_;
  std::vector<ByteSpan> spans_;
  std::vector<std::int64_t> starts_;
};

}  // namespace loom::core
