#include "loom/core/random_access.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>

namespace loom::core {

void advise_random_access(const NpyArray& array) {
  if (array.nbytes() == 0 || array.data() == nullptr) return;
  const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto begin = reinterpret_cast<std::uintptr_t>(array.data()) & ~(page - 1);
  const auto end = reinterpret_cast<std::uintptr_t>(array.data()) + array.nbytes();
  ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_RANDOM);
}

}  // namespace loom::core
