// Reads IDX files (the MNIST / Fashion-MNIST container: big-endian header, then raw values),
// gzip-compressed or plain. Only unsigned-byte data (type 0x08) is supported, which is what the
// MNIST family uses. Every problem (missing file, bad magic, wrong rank, truncated or corrupt
// data, trailing bytes) throws loom::Error naming the file.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace loom::graph::io {

struct IdxArray {
  std::vector<std::int64_t> dims;  // e.g. {60000, 28, 28} for images, {60000} for labels
  std::vector<std::uint8_t> data;  // product(dims) values, row-major
};

// Reads an unsigned-byte IDX file whose rank must be `expected_rank`.
IdxArray read_idx_ubyte(const std::string& path, int expected_rank);

}  // namespace loom::graph::io
