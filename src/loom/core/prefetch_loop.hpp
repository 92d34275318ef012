// A loop that asks for what it will read a few iterations before reading it: for every i in
// [begin, end), prefetch(i + ahead) is called before fn(i) (and prefetch(begin .. begin + ahead)
// first), so that a gather at random addresses keeps several reads from memory in flight instead
// of waiting for the memory once per item. prefetch must only hint (__builtin_prefetch), never read.
// (Hints to the CPU caches; file read-ahead through the page cache is core/readahead.hpp.)
#pragma once

#include <algorithm>
#include <cstdint>

namespace loom::core {

template <class Prefetch, class Fn>
void for_each_prefetching(std::int64_t begin, std::int64_t end, std::int64_t ahead, Prefetch&& prefetch, Fn&& fn) {
  for (std::int64_t i = begin; i < std::min(end, begin + ahead); ++i) prefetch(i);
  for (std::int64_t i = begin; i < end; ++i) {
    if (i + ahead < end) prefetch(i + ahead);
    fn(i);
  }
}

}  // namespace loom::core
