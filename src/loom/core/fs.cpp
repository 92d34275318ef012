#include "loom/core/fs.hpp"

#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "loom/core/error.hpp"

namespace fs = std::filesystem;

namespace loom::core {

bool remove_tree(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return errno == ENOENT;
  const auto remove_entry = [](const char* entry, const struct stat*, int, FTW*) { return ::remove(entry); };
  return ::nftw(path.c_str(), remove_entry, 16, FTW_DEPTH | FTW_PHYS) == 0;
}

std::string temp_suffix() {
  static std::atomic<int> counter{0};
  return "tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
}

TempDir::TempDir() : path_((fs::temp_directory_path() / ("loom-" + temp_suffix())).string()) {
  std::error_code ec;
  fs::create_directories(path_, ec);
  if (ec) throw Error::in_file(path_, 0, "cannot create a temporary folder: " + ec.message());
}

TempDir::~TempDir() { remove_tree(path_); }

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)), temp_(path_ + "." + temp_suffix()) {
  file_ = std::fopen(temp_.c_str(), "wb");
  if (!file_) throw Error::in_file(path_, 0, std::string("cannot write: ") + std::strerror(errno));
}

AtomicFile::~AtomicFile() {
  if (file_) {
    std::fclose(file_);
    std::remove(temp_.c_str());
  }
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
  temp_ = dir_ + "." + temp_suffix();
  if (!fs::create_directory(temp_, ec) || ec)
    throw Error::in_argument(argument,
                             "cannot write output directory '" + dir_ + "': " + (ec ? ec.message() : "exists"));
}

OutputDir::~OutputDir() {
  if (!committed_) remove_tree(temp_);
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
