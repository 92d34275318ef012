// Files and directories that appear whole or not at all.
// AtomicFile writes to "<path>.tmp-<pid>-<n>" and renames onto <path> on commit(); if it is
// destroyed without commit (an exception), the temporary is removed.
// OutputDir builds a whole output directory under "<dir>.tmp-<pid>-<n>" and renames it onto
// <dir> on commit(); an exception leaves nothing behind. It fails early, naming the argument,
// when the parent cannot be written or the target exists without `overwrite`.
#pragma once

#include <cstdio>
#include <string>

namespace loom::core {

class AtomicFile {
 public:
  explicit AtomicFile(std::string path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  std::FILE* stream() { return file_; }
  const std::string& final_path() const { return path_; }
  void commit();

 private:
  std::string path_, temp_;
  std::FILE* file_ = nullptr;
};

// Throws what OutputDir would for `dir` (an empty path, or one that exists without `overwrite`),
// naming `argument`, without creating anything: checks an output argument before long work.
void check_output_target(const std::string& dir, bool overwrite, const std::string& argument = "-o");

class OutputDir {
 public:
  // `argument` names the CLI option the path came from, for error messages (e.g. "-o").
  OutputDir(std::string dir, bool overwrite, std::string argument = "-o");
  ~OutputDir();
  OutputDir(const OutputDir&) = delete;
  OutputDir& operator=(const OutputDir&) = delete;

  // The temporary directory to write into; `file("x.npy")` joins a name onto it.
  const std::string& path() const { return temp_; }
  std::string file(const std::string& name) const { return temp_ + "/" + name; }
  const std::string& final_path() const { return dir_; }
  void commit();

 private:
  std::string dir_, temp_;
  bool overwrite_;
  bool committed_ = false;
};

// A fresh folder under the system's temporary folder, removed with what it holds on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Removes `path` and what it holds, without following links (nothing to do where it is absent);
// false, with errno set, where something could not be removed. POSIX nftw, not
// std::filesystem::remove_all: a pip PyTorch's LibTorch exports a copy of libstdc++'s
// std::filesystem, and processes loading it crashed (a jump to address 0) in remove_all of a
// non-empty folder on the GPU device machine, with libstdc++ linked ahead of LibTorch.
bool remove_tree(const std::string& path);
// A unique suffix "tmp-<pid>-<counter>" for temporary names.
std::string temp_suffix();
// Total size in bytes of the regular files under `path` (recursively).
long long directory_size(const std::string& path);
// Reads a whole (small) file into a string; throws Error naming the file if it cannot.
std::string read_text_file(const std::string& path);
// Writes a string to a file atomically.
void write_text_file(const std::string& path, const std::string& text);

}  // namespace loom::core
