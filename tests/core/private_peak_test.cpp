// PrivatePeak sees this process's own pages come and go: its peak holds a buffer written and
// freed again, and stays at least what the process holds now.
#include "loom/core/private_peak.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>

#include "loom/core/memory.hpp"

namespace loom::core {
namespace {

TEST(PrivatePeak, HoldsABufferWrittenAndFreedAgain) {
  if (private_resident_bytes() < 0) GTEST_SKIP() << "no /proc/self/status here";
  PrivatePeak peak;
  const std::int64_t before = private_resident_bytes();
  constexpr std::size_t kBytes = std::size_t{96} << 20;
  {
    auto buffer = std::make_unique<char[]>(kBytes);
    std::memset(buffer.get(), 1, kBytes);  // resident now
    // The buffer is never read: without this, clang may drop the allocation and the memset.
    asm volatile("" : : "r"(buffer.get()) : "memory");
    EXPECT_GE(peak.bytes(), before + static_cast<std::int64_t>(kBytes) * 9 / 10);
  }
  EXPECT_GE(peak.bytes(), before + static_cast<std::int64_t>(kBytes) * 9 / 10);  // freed, still the peak
  EXPECT_GE(peak.bytes(), private_resident_bytes());
}

}  // namespace
}  // namespace loom::core
