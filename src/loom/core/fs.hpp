// Files and directories that appear whole or not at all.
// AtomicFile writes to "<path>.tmp-<host>-<pid>-<n>" and renames onto <path> on commit(); if it is
// destroyed without commit (an exception), the temporary is removed.
// OutputDir builds a whole output directory under "<dir>.tmp-<host>-<pid>-<n>" and renames it onto
// <dir> on commit(); an exception leaves nothing behind. It fails early, naming the argument,
// when the parent cannot be written or the target exists without `overwrite`. Before it starts, it removes what runs of
// this host that no longer exist (SIGKILL, a power cut) left beside the target under temporary names. Every temporary
// of these (and TempDir's, MetricsLog's) is registered while it exists, so that a command ended by SIGTERM or SIGINT
// removes it (core/stop_signal.hpp) and leaves nothing behind.
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
  int slot_ = -1;  // in the registry of temporaries
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
  int slot_ = -1;
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
  int slot_ = -1;
};

// Removes `path` and what it holds, without following links (nothing to do where it is absent);
// false, with errno set, where something could not be removed. POSIX nftw, not
// std::filesystem::remove_all: a pip PyTorch's LibTorch exports a copy of libstdc++'s
// std::filesystem, and processes loading it crashed (a jump to address 0) in remove_all of a
// non-empty folder on the GPU device machine, with libstdc++ linked ahead of LibTorch.
bool remove_tree(const std::string& path);
// A unique suffix "tmp-<host>-<pid>-<counter>" for temporary names.
std::string temp_suffix();

// Throws Error naming `argument` when writing `output` would replace `input`: the same path, or a
// folder that holds it (`import ogb DIR -o DIR --overwrite` would delete its own source). An output
// inside an input folder is allowed (`import ogb DIR -o DIR/store`).
void check_output_apart(const std::string& output, const std::string& input, const std::string& argument);

// Throws Error naming `argument` when `bytes` (what an option's value makes a command write under
// `output`, estimated from it: `what`) exceed the space free on the file system `output` would be on.
void check_disk_for(double bytes, const std::string& output, const std::string& argument, const std::string& what);

// The registry of temporaries in progress: a slot (or -1 when all are taken: the temporary is then
// not removed on a signal) that unregister_temporary() frees. A temporary with `finish_as` (a log
// of whole records) is renamed onto that path on a signal instead of being removed.
int register_temporary(const std::string& path, const std::string& finish_as = "");
void unregister_temporary(int slot);
// Removes (or renames into place) every registered temporary, files and folders (async-signal-safe:
// from a signal handler, with raw system calls only); returns how many it removed.
int remove_registered_temporaries();
// Removes the temporaries "<path>.tmp-<host>-<pid>-<n>" that processes of this host which no
// longer run left beside `path`, naming each in a log line; those of running processes and of
// other hosts (a shared file system) stay.
void remove_stale_temporaries(const std::string& path);
// Total size in bytes of the regular files under `path` (recursively).
long long directory_size(const std::string& path);
// Reads a whole (small) file into a string; throws Error naming the file if it cannot.
std::string read_text_file(const std::string& path);
// Writes a string to a file atomically.
void write_text_file(const std::string& path, const std::string& text);

}  // namespace loom::core
