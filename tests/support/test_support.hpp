// Helpers shared by all test binaries: where the shared real data is (LOOM_DATA), a scratch
// directory removed after each test, and running the `loom` binary for end-to-end CLI tests.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

namespace loom::test {

// $LOOM_DATA, or ../shared/data beside the project source.
std::string data_dir();
// The project's source folder (fixtures kept in the repository: tests/fuzz/corpus/...).
std::string source_dir();
// Declares `std::string var` = data_dir()/relative, or skips the calling test (GTEST_SKIP)
// with a message when it is absent: LOOM_REQUIRE_DATA(cora, "graphs/cora");
#define LOOM_REQUIRE_DATA(var, relative)                               \
  const std::string var = ::loom::test::data_dir() + "/" + (relative); \
  if (!::loom::test::exists(var)) GTEST_SKIP() << "shared data not found at " << var << " (set LOOM_DATA to its folder)"
bool exists(const std::string& path);

// A fresh directory under the system temp dir, removed (recursively) on destruction.
class ScratchDir {
 public:
  ScratchDir();
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

struct CommandResult {
  int status = 0;      // exit status
  std::string output;  // stdout and stderr together
};
// Runs `loom ARGS` (a shell-quoted argument string) and captures its output.
CommandResult run_loom(const std::string& args);
// Runs a shell command line and captures its output (stderr too).
CommandResult run_command(const std::string& command);
std::string loom_binary();

// The bytes of a file ("" when it cannot be read).
std::string read_bytes(const std::string& path);
// Every file of store `b` (recursively) equals the same file of store `a` byte for byte, and they
// hold the same files; meta.json files are compared without what holds timings ("provenance",
// "seconds", and the seal over them, "meta_digest"). Adds a failure per difference; returns the number of files
// compared.
int expect_same_store(const std::string& a, const std::string& b);

// Whether `part` occurs in `text` (for messages and outputs).
bool contains(const std::string& text, const std::string& part);

// `v` as 4 big-endian bytes (IDX files' integers).
std::string be32(std::uint32_t v);

// Writes `text` to `path` (plain, or gzip-compressed when gzip is true).
void write_file(const std::string& path, const std::string& text, bool gzip = false);
// Writes each {relative path, text} of `files` into `dir` gzip-compressed, creating folders: an OGB
// raw directory ({"raw/edge.csv.gz", "0,1\n"}, {"split/k/train.csv.gz", "0\n"}, ...).
void write_gz_files(const std::string& dir, const std::vector<std::pair<std::string, std::string>>& files);

}  // namespace loom::test
