#include "loom/core/fs.hpp"

#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstddef>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <vector>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "loom/core/error.hpp"

namespace fs = std::filesystem;

namespace loom::core {

bool remove_tree(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return errno == ENOENT;
  const auto remove_entry = [](const char* entry, const struct stat*, int, FTW*) { return ::remove(entry); };
  return ::nftw(path.c_str(), remove_entry, 16, FTW_DEPTH | FTW_PHYS) == 0;
}

namespace {

const std::string& host_name() {
  static const std::string name = [] {
    char buffer[256] = {};
    if (::gethostname(buffer, sizeof buffer - 1) != 0 || buffer[0] == '\0') return std::string("host");
    std::string host(buffer);
    for (char& c : host)
      if (c == '/') c = '_';
    return host;
  }();
  return name;
}

// The registry of temporaries: fixed storage, so that a signal handler can read it.
constexpr int kTemporarySlots = 64;
struct TemporarySlot {
  std::atomic<bool> used{false};
  char path[4096] = {};
  char finish_as[4096] = {};  // "" = remove
};
TemporarySlot g_temporaries[kTemporarySlots];
std::mutex g_register;

// Removes `name` under `dirfd` (a file, or a folder and what it holds) with raw system calls only.
// A folder is listed again after each batch it lost, since removing entries while listing a folder
// may skip some.
void remove_raw(int dirfd, const char* name, int depth) {
  if (::unlinkat(dirfd, name, 0) == 0 || errno == ENOENT || depth > 16) return;
  const int fd = ::openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return;
  alignas(8) char buffer[8192];
  for (bool removed = true; removed;) {
    removed = false;
    ::lseek(fd, 0, SEEK_SET);
    for (long n; (n = ::syscall(SYS_getdents64, fd, buffer, sizeof buffer)) > 0;) {
      for (long at = 0; at < n;) {
        const char* entry = buffer + at;
        unsigned short length = 0;
        std::memcpy(&length, entry + 16, sizeof length);  // struct linux_dirent64: ino, off, reclen, type, name
        const char* entry_name = entry + 19;
        at += length;
        if (std::strcmp(entry_name, ".") == 0 || std::strcmp(entry_name, "..") == 0) continue;
        remove_raw(fd, entry_name, depth + 1);
        removed = true;
      }
    }
  }
  ::close(fd);
  ::unlinkat(dirfd, name, AT_REMOVEDIR);
}

bool process_runs(long pid) { return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM; }

// The process id in a temporary's suffix "<host>-<pid>-<n>" when <host> is this host, else -1.
long pid_of_local_temporary(const std::string& suffix) {
  const std::size_t last = suffix.rfind('-');
  if (last == std::string::npos || last == 0) return -1;
  const std::size_t before = suffix.rfind('-', last - 1);
  if (before == std::string::npos || suffix.substr(0, before) != host_name()) return -1;
  const std::string pid = suffix.substr(before + 1, last - before - 1);
  if (pid.empty() || pid.size() > 9 || pid.find_first_not_of("0123456789") != std::string::npos) return -1;
  return std::stol(pid);
}

}  // namespace

std::string temp_suffix() {
  static std::atomic<int> counter{0};
  return "tmp-" + host_name() + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
}

int register_temporary(const std::string& path, const std::string& finish_as) {
  if (path.size() >= sizeof(TemporarySlot::path) || finish_as.size() >= sizeof(TemporarySlot::finish_as)) return -1;
  const std::lock_guard<std::mutex> lock(g_register);
  for (int slot = 0; slot < kTemporarySlots; ++slot) {
    TemporarySlot& t = g_temporaries[slot];
    if (t.used.load(std::memory_order_relaxed)) continue;
    std::memcpy(t.path, path.c_str(), path.size() + 1);
    std::memcpy(t.finish_as, finish_as.c_str(), finish_as.size() + 1);
    t.used.store(true, std::memory_order_release);
    return slot;
  }
  return -1;
}

void unregister_temporary(int slot) {
  if (slot >= 0) g_temporaries[slot].used.store(false, std::memory_order_release);
}

int remove_registered_temporaries() {
  int removed = 0;
  for (TemporarySlot& t : g_temporaries) {
    if (!t.used.load(std::memory_order_acquire)) continue;
    const bool renamed = t.finish_as[0] != '\0' && ::rename(t.path, t.finish_as) == 0;
    if (!renamed) remove_raw(AT_FDCWD, t.path, 0);
    t.used.store(false, std::memory_order_release);
    removed += renamed ? 0 : 1;
  }
  return removed;
}

void remove_stale_temporaries(const std::string& path) {
  std::error_code ec;
  const fs::path target = fs::absolute(path, ec);
  if (ec) return;
  const std::string prefix = target.filename().string() + ".tmp-";
  std::vector<fs::path> stale;
  for (const auto& entry : fs::directory_iterator(target.parent_path(), ec)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with(prefix)) continue;
    const long pid = pid_of_local_temporary(name.substr(prefix.size()));
    if (pid > 0 && !process_runs(pid)) stale.push_back(entry.path());
  }
  for (const fs::path& leftover : stale)
    if (remove_tree(leftover.string()))
      spdlog::info("removed {}, which an ended run (process {}) left unfinished", leftover.string(),
                   pid_of_local_temporary(leftover.filename().string().substr(prefix.size())));
}

void check_output_apart(const std::string& output, const std::string& input, const std::string& argument) {
  std::error_code ec1, ec2;
  const fs::path out = fs::weakly_canonical(output, ec1), in = fs::weakly_canonical(input, ec2);
  if (ec1 || ec2 || out.empty()) return;
  const auto [differs, rest] = std::mismatch(out.begin(), out.end(), in.begin(), in.end());
  if (differs != out.end()) return;  // the output is not the input, nor a folder above it
  throw Error::in_argument(argument,
                           "output '" + output + "' " +
                               (rest == in.end() ? std::string("is the input") : "holds the input '" + input + "'") +
                               ": writing it would replace its own input; choose another path");
}

void check_disk_for(double bytes, const std::string& output, const std::string& argument, const std::string& what) {
  std::error_code ec;
  fs::path at = fs::absolute(output, ec);
  while (!at.empty() && !fs::exists(at, ec) && at != at.parent_path()) at = at.parent_path();
  const fs::space_info space = fs::space(at, ec);
  if (ec || bytes <= static_cast<double>(space.available)) return;
  throw Error::in_argument(argument,
                           fmt::format("{} would write about {:.3g} GB, more than the {:.3g} GB free on the file "
                                       "system of '{}'",
                                       what, bytes / 1e9, static_cast<double>(space.available) / 1e9, output));
}

TempDir::TempDir() : path_((fs::temp_directory_path() / ("loom-" + temp_suffix())).string()) {
  std::error_code ec;
  fs::create_directories(path_, ec);
  if (ec) throw Error::in_file(path_, 0, "cannot create a temporary folder: " + ec.message());
  slot_ = register_temporary(path_);
}

TempDir::~TempDir() {
  remove_tree(path_);
  unregister_temporary(slot_);
}

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)), temp_(path_ + "." + temp_suffix()) {
  remove_stale_temporaries(path_);
  slot_ = register_temporary(temp_);
  file_ = std::fopen(temp_.c_str(), "wb");
  if (!file_) {
    unregister_temporary(slot_);
    throw Error::in_file(path_, 0, std::string("cannot write: ") + std::strerror(errno));
  }
}

AtomicFile::~AtomicFile() {
  if (file_) {
    std::fclose(file_);
    std::remove(temp_.c_str());
  }
  unregister_temporary(slot_);
}

void AtomicFile::commit() {
  const bool flushed = std::fflush(file_) == 0;
  const bool closed = std::fclose(file_) == 0;
  file_ = nullptr;
  if (!flushed || !closed) {
    std::remove(temp_.c_str());
    throw Error::in_file(path_, 0, std::string("write failed: ") + std::strerror(errno));
  }
  if (std::rename(temp_.c_str(), path_.c_str()) != 0) {
    std::remove(temp_.c_str());
    throw Error::in_file(path_, 0, std::string("cannot rename into place: ") + std::strerror(errno));
  }
}

namespace {

std::string without_trailing_slashes(std::string dir) {
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  return dir;
}

}  // namespace

void check_output_target(const std::string& dir, bool overwrite, const std::string& argument) {
  const std::string target = without_trailing_slashes(dir);
  if (target.empty()) throw Error::in_argument(argument, "empty output path");
  std::error_code ec;
  if (fs::exists(target, ec) && !overwrite)
    throw Error::in_argument(argument, "output '" + target + "' already exists (pass --overwrite to replace it)");
}

OutputDir::OutputDir(std::string dir, bool overwrite, std::string argument)
    : dir_(without_trailing_slashes(std::move(dir))), overwrite_(overwrite) {
  check_output_target(dir_, overwrite_, argument);
  std::error_code ec;
  const fs::path parent = fs::absolute(dir_, ec).parent_path();
  fs::create_directories(parent, ec);
  if (ec || !fs::is_directory(parent))
    throw Error::in_argument(
        argument, "cannot create parent directory of '" + dir_ + "': " + (ec ? ec.message() : "not a directory"));
  remove_stale_temporaries(dir_);
  temp_ = dir_ + "." + temp_suffix();
  slot_ = register_temporary(temp_);
  if (!fs::create_directory(temp_, ec) || ec) {
    unregister_temporary(slot_);
    throw Error::in_argument(argument,
                             "cannot write output directory '" + dir_ + "': " + (ec ? ec.message() : "exists"));
  }
}

OutputDir::~OutputDir() {
  if (!committed_) remove_tree(temp_);
  unregister_temporary(slot_);
}

void OutputDir::commit() {
  std::error_code ec;
  if (fs::exists(dir_, ec)) {
    if (!overwrite_) throw Error::in_file(dir_, 0, "appeared while writing; not replacing it");
    if (!remove_tree(dir_)) throw Error::in_file(dir_, 0, std::string("cannot replace: ") + std::strerror(errno));
  }
  fs::rename(temp_, dir_, ec);
  if (ec) throw Error::in_file(dir_, 0, "cannot rename output into place: " + ec.message());
  committed_ = true;
  unregister_temporary(slot_);
  slot_ = -1;
}

long long directory_size(const std::string& path) {
  long long total = 0;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(path, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec))
    if (it->is_regular_file(ec)) total += static_cast<long long>(it->file_size(ec));
  return total;
}

std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error::in_file(path, 0, std::string("cannot open: ") + std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_text_file(const std::string& path, const std::string& text) {
  AtomicFile out(path);
  if (std::fwrite(text.data(), 1, text.size(), out.stream()) != text.size())
    throw Error::in_file(path, 0, std::string("write failed: ") + std::strerror(errno));
  out.commit();
}

}  // namespace loom::core
