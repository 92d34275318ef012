// Shared by the fuzz targets: each target feeds libFuzzer's bytes to one parser of outside input
// through the same entry point the CLI uses (most parsers read files, so the bytes become a file
// in a per-process scratch directory). A loom::Error is the expected answer to bad input; any
// other exception, crash, leak or sanitizer report is a finding.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include <spdlog/spdlog.h>

#include "loom/core/error.hpp"

namespace loom::fuzz {

// This process's scratch directory (created once, removed at exit); the first call also silences
// Loom's logging, which the parsers use for warnings and progress.
inline const std::string& scratch_dir() {
  struct Scratch {
    std::string path;
    Scratch() : path(std::filesystem::temp_directory_path().string() + "/loom-fuzz-" + std::to_string(getpid())) {
      spdlog::set_level(spdlog::level::off);
      std::filesystem::create_directories(path);
    }
    ~Scratch() {
      std::error_code ignored;
      std::filesystem::remove_all(path, ignored);
    }
  };
  static const Scratch scratch;
  return scratch.path;
}

// Writes `bytes` to scratch_dir()/name and returns the path.
inline std::string write_input(const std::string& name, std::string_view bytes) {
  const std::string path = scratch_dir() + "/" + name;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return path;
}

// Runs `parse`; a loom::Error (a clear message about bad input) is an expected outcome.
template <class F>
void expect_parse_or_error(F&& parse) {
  try {
    parse();
  } catch (const loom::Error&) {}
}

// The first byte picks a mode among `modes`; the rest is the input.
struct ModeAndBytes {
  int mode = 0;
  std::string_view bytes;
};
inline ModeAndBytes split_mode(const std::uint8_t* data, std::size_t size, int modes) {
  if (size == 0) return {0, {}};
  return {data[0] % modes, std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1)};
}

}  // namespace loom::fuzz
