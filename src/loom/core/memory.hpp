// What this process holds and what the machine has left, from /proc and cgroup v2: resident and
// peak resident bytes of this process (VmRSS, VmHWM) and the bytes still available to it (the
// smaller of /proc/meminfo's MemAvailable and the cgroup's memory.max - memory.current, counting
// the cgroup's inactive page cache as available). -1 where
// a figure cannot be read (another OS, no /proc). Sizes as options and people write them.
#pragma once

#include <cstdint>
#include <string>

namespace loom::core {

std::int64_t resident_bytes();
std::int64_t peak_resident_bytes();
// The process's own resident pages (RssAnon), not the file pages it maps.
std::int64_t private_resident_bytes();
std::int64_t available_bytes();
// Whether `bytes` exceed half the memory available now: data mapped from files that large will not
// stay in the page cache, so Loom reads it in file order (sampling, feature gathers).
bool exceeds_half_available(std::int64_t bytes);

// Throws Error naming `argument` when `bytes` (what an option's value makes a command allocate,
// estimated from it: `what`) exceed the memory available now: an absurd value is refused by name
// before anything is allocated, not by the allocator. No check where availability is unknown.
void check_memory_for(double bytes, const std::string& argument, const std::string& what);

// A size option's value ("--memory-limit 8G"): bytes with an optional K, M, G or T suffix (powers
// of 1024, an optional B or iB after it); throws Error naming `argument` otherwise.
std::int64_t parse_memory_size(const std::string& text, const std::string& argument);
// A size for people: "12.3 MiB" (powers of 1024, one decimal from KiB on).
std::string human_bytes(double bytes);

}  // namespace loom::core
