#include "loom/graph/io/idx_reader.hpp"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <limits>

#include "loom/core/error.hpp"

namespace loom::graph::io {

namespace {

constexpr std::uint8_t kUnsignedByte = 0x08;
// A header asking for more than this many values is corrupt rather than a real data set.
constexpr std::int64_t kMaxValues = std::int64_t{1} << 36;

class GzInput {
 public:
  explicit GzInput(const std::string& path) : path_(path) {
    if (!std::filesystem::is_regular_file(path)) throw Error::in_file(path, 0, "file not found");
    file_ = gzopen(path.c_str(), "rb");
    if (!file_) throw Error::in_file(path, 0, std::string("cannot open: ") + std::strerror(errno));
  }
  ~GzInput() { gzclose(file_); }
  GzInput(const GzInput&) = delete;
  GzInput& operator=(const GzInput&) = delete;

  // Reads up to `size` bytes; returns how many were read. Throws on a corrupt stream.
  std::size_t read(void* out, std::size_t size) {
    auto* bytes = static_cast<char*>(out);
    std::size_t done = 0;
    while (done < size) {
      const auto chunk = static_cast<unsigned>(std::min<std::size_t>(size - done, 1u << 30));
      const int got = gzread(file_, bytes + done, chunk);
      if (got < 0 || (got == 0 && !gzeof(file_))) fail();
      if (got == 0) break;
      done += static_cast<std::size_t>(got);
    }
    // zlib reports a stream cut short inside the compressed data as an error, not as EOF.
    int code = Z_OK;
    gzerror(file_, &code);
    if (code != Z_OK) fail();
    return done;
  }

 private:
  [[noreturn]] void fail() {
    int code = Z_OK;
    const char* message = gzerror(file_, &code);
    throw Error::in_file(path_, 0,
                         std::string("corrupt or truncated gzip data: ") + (message ? message : "unknown error"));
  }
  std::string path_;
  gzFile file_ = nullptr;
};

}  // namespace

IdxArray read_idx_ubyte(const std::string& path, int expected_rank) {
  GzInput in(path);
  std::uint8_t magic[4];
  if (in.read(magic, 4) != 4) throw Error::in_file(path, 0, "too short for an IDX header");
  if (magic[0] != 0 || magic[1] != 0)
    throw Error::in_file(path, 0, "not an IDX file (magic number must start with two zero bytes)");
  if (magic[2] != kUnsignedByte)
    throw Error::in_file(
        path, 0, fmt::format("IDX data type 0x{:02x} is not supported (expected 0x08, unsigned byte)", magic[2]));
  if (magic[3] != expected_rank)
    throw Error::in_file(path, 0, fmt::format("IDX array has {} dimensions, expected {}", magic[3], expected_rank));

  IdxArray out;
  std::int64_t count = 1;
  for (int d = 0; d < expected_rank; ++d) {
    std::uint8_t raw[4];
    if (in.read(raw, 4) != 4) throw Error::in_file(path, 0, "truncated IDX header");
    const std::int64_t dim = (std::int64_t{raw[0]} << 24) | (raw[1] << 16) | (raw[2] << 8) | raw[3];
    if (dim <= 0) throw Error::in_file(path, 0, fmt::format("IDX dimension {} is {}, must be positive", d, dim));
    count *= dim;
    if (count > kMaxValues) throw Error::in_file(path, 0, "IDX header declares an implausibly large array");
    out.dims.push_back(dim);
  }
  out.data.resize(static_cast<std::size_t>(count));
  const std::size_t got = in.read(out.data.data(), out.data.size());
  if (got != out.data.size())
    throw Error::in_file(path, 0, fmt::format("truncated: header declares {} values, file holds {}", count, got));
  std::uint8_t extra;
  if (in.read(&extra, 1) != 0)
    throw Error::in_file(path, 0, fmt::format("unexpected data after the {} declared values", count));
  return out;
}

}  // namespace loom::graph::io
