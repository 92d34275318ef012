#include "loom/core/memory.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

#include <fmt/format.h>

#include "loom/core/error.hpp"

namespace loom::core {

namespace {

// The value in KiB of "Key:   123 kB" in a /proc file, or -1.
std::int64_t proc_kib(const char* path, const std::string& key) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(key, 0) == 0) {
      std::istringstream fields(line.substr(key.size()));
      std::int64_t kib = -1;
      fields >> kib;
      return kib;
    }
  return -1;
}

// A cgroup v2 file holding one number ("max" and unreadable: -1).
std::int64_t cgroup_number(const std::string& name) {
  std::ifstream in("/sys/fs/cgroup/" + name);
  std::string word;
  if (!(in >> word) || word == "max") return -1;  // input text: a cgroup file
  try {
    return std::stoll(word);
  } catch (const std::exception&) {
    return -1;
  }
}

// A "key value" line of the cgroup's memory.stat, in bytes (-1 if absent).
std::int64_t cgroup_stat(const std::string& key) {
  std::ifstream in("/sys/fs/cgroup/memory.stat");
  std::string name;
  std::int64_t value = 0;
  while (in >> name >> value)
    if (name == key) return value;
  return -1;
}

std::int64_t bytes_of_kib(std::int64_t kib) { return kib < 0 ? -1 : kib * 1024; }

}  // namespace

std::int64_t resident_bytes() { return bytes_of_kib(proc_kib("/proc/self/status", "VmRSS:")); }

std::int64_t peak_resident_bytes() { return bytes_of_kib(proc_kib("/proc/self/status", "VmHWM:")); }

std::int64_t private_resident_bytes() { return bytes_of_kib(proc_kib("/proc/self/status", "RssAnon:")); }

std::int64_t available_bytes() {
  std::int64_t available = bytes_of_kib(proc_kib("/proc/meminfo", "MemAvailable:"));
  // The cgroup charges page cache too: what it could reclaim (inactive files) is still available.
  const std::int64_t limit = cgroup_number("memory.max"), charged = cgroup_number("memory.current");
  if (limit >= 0 && charged >= 0) {
    const std::int64_t used = charged - std::max<std::int64_t>(0, cgroup_stat("inactive_file"));
    available = available < 0 ? limit - used : std::min(available, limit - used);
  }
  return available;
}

bool exceeds_half_available(std::int64_t bytes) { return bytes > available_bytes() / 2; }

std::int64_t parse_memory_size(const std::string& text, const std::string& argument) {
  std::size_t used = 0;
  double value = -1;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  std::string unit = text.substr(used);
  if (!unit.empty() && (unit.back() == 'B' || unit.back() == 'b')) unit.pop_back();
  if (unit.size() == 2 && (unit[1] == 'i' || unit[1] == 'I')) unit.pop_back();
  const std::string units = "KMGT";
  const auto power =
      unit.empty() ? 0 : units.find(static_cast<char>(std::toupper(static_cast<unsigned char>(unit[0]))));
  LOOM_CHECK_ARG(used > 0 && std::isfinite(value) && value >= 0 && unit.size() <= 1 && power != std::string::npos,
                 argument, "expected a size such as 512M, 4G or 1048576, got '{}'", text);
  const double bytes = value * std::pow(1024.0, unit.empty() ? 0 : static_cast<double>(power) + 1);
  LOOM_CHECK_ARG(bytes < 0x1p62, argument, "'{}' is larger than any memory (at most 4 EiB)", text);
  return static_cast<std::int64_t>(bytes);
}

void check_memory_for(double bytes, const std::string& argument, const std::string& what) {
  const std::int64_t available = available_bytes();
  if (available < 0 || bytes <= static_cast<double>(available)) return;
  throw Error::in_argument(argument,
                           fmt::format("{} would take about {}, more than the {} this machine has available", what,
                                       human_bytes(bytes), human_bytes(static_cast<double>(available))));
}

std::string human_bytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (bytes >= 1024.0 && u < 4) {
    bytes /= 1024.0;
    ++u;
  }
  return u == 0 ? fmt::format("{:.0f} {}", bytes, units[u]) : fmt::format("{:.1f} {}", bytes, units[u]);
}

}  // namespace loom::core
