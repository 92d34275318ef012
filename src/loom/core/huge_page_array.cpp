#include "loom/core/huge_page_array.hpp"

#include <sys/mman.h>

#include <new>

namespace loom::core {

namespace {
constexpr std::size_t kHugePage = std::size_t{2} << 20;
}

void HugePageFree::operator()(void* data) const {
  if (data != nullptr) munmap(data, bytes);
}

std::unique_ptr<void, HugePageFree> allocate_huge_pages(std::size_t bytes) {
  if (bytes == 0) return {nullptr, HugePageFree{0}};
  const std::size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
  // Map one huge page more than asked and trim both ends to a 2 MiB boundary.
  void* mapped = mmap(nullptr, rounded + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapped == MAP_FAILED) throw std::bad_alloc();
  const auto start = reinterpret_cast<std::uintptr_t>(mapped);
  const std::uintptr_t aligned = (start + kHugePage - 1) / kHugePage * kHugePage;
  if (aligned > start) munmap(mapped, aligned - start);
  const std::uintptr_t tail = start + rounded + kHugePage - (aligned + rounded);
  if (tail > 0) munmap(reinterpret_cast<void*>(aligned + rounded), tail);
  void* data = reinterpret_cast<void*>(aligned);
#ifdef MADV_HUGEPAGE
  madvise(data, rounded, MADV_HUGEPAGE);
#endif
  return {data, HugePageFree{rounded}};
}

}  // namespace loom::core
