// HugePageArray<T>: a zero-filled array of trivially copyable T whose memory the kernel is asked
// to back with 2 MiB pages (madvise MADV_HUGEPAGE, which this kernel's transparent huge pages
// honour in "madvise" mode). For tables read at random, where 4 KiB pages would cost a TLB miss on
// almost every read. Where the advice is not taken the array works the same, on small pages.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>

namespace loom::core {

// Memory of `bytes` (rounded up to 2 MiB), zero-filled, aligned to 2 MiB and advised as above.
struct HugePageFree {
  std::size_t bytes = 0;
  void operator()(void* data) const;
};
std::unique_ptr<void, HugePageFree> allocate_huge_pages(std::size_t bytes);

template <class T>
class HugePageArray {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  HugePageArray() = default;
  explicit HugePageArray(std::size_t size) : memory_(allocate_huge_pages(size * sizeof(T))), size_(size) {}

  T* data() { return static_cast<T*>(memory_.get()); }
  const T* data() const { return static_cast<const T*>(memory_.get()); }
  T& operator[](std::size_t i) { return data()[i]; }
  const T& operator[](std::size_t i) const { return data()[i]; }
  std::size_t size() const { return size_; }

 private:
  std::unique_ptr<void, HugePageFree> memory_;
  std::size_t size_ = 0;
};

}  // namespace loom::core
