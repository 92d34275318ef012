// NumPy .npy arrays: memory-mapped reading and atomic writing (temp file + rename), so that a
// reader never sees a half-written file. Supports little-endian C-order arrays of
// bool/int8/uint8/int32/int64/uint64/float16/float32/float64 with any number of dimensions.
// NpyArray is a read-only view that keeps its mapping (or owned buffer) alive; copies share it.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "loom/format/dtype.hpp"
#include "loom/core/error.hpp"
#include "loom/core/fs.hpp"
#include "loom/format/half.hpp"

namespace loom::format {

// numpy descr: "<f4", "<i8", ...
std::string dtype_descr(DType dtype);

// The header of an .npy file: element type, shape (C order) and the byte where the data starts.
struct NpyHeader {
  DType dtype = DType::kFloat32;
  std::vector<std::int64_t> shape;
  std::size_t data_offset = 0;
  std::int64_t size() const;  // number of elements
};
// The bytes an .npy header takes (its data offset), from the file's first 12 bytes (`prefix`; 10
// suffice for version 1); throws Error naming `path` when they start no .npy file.
std::size_t npy_header_bytes(std::span<const unsigned char> prefix, const std::string& path);
// The header in the first npy_header_bytes() bytes of an .npy file; throws Error naming `path`
// when it is malformed, Fortran-ordered, or leaves the data off its element boundary.
NpyHeader parse_npy_header(std::span<const unsigned char> bytes, const std::string& path);

template <class T>
constexpr DType dtype_of();
template <>
constexpr DType dtype_of<bool>() {
  return DType::kBool;
}
template <>
constexpr DType dtype_of<std::int8_t>() {
  return DType::kInt8;
}
template <>
constexpr DType dtype_of<std::uint8_t>() {
  return DType::kUInt8;
}
template <>
constexpr DType dtype_of<std::int32_t>() {
  return DType::kInt32;
}
template <>
constexpr DType dtype_of<std::int64_t>() {
  return DType::kInt64;
}
template <>
constexpr DType dtype_of<std::uint64_t>() {
  return DType::kUInt64;
}
template <>
constexpr DType dtype_of<Half>() {
  return DType::kFloat16;
}
template <>
constexpr DType dtype_of<BFloat16>() {
  return DType::kBFloat16;
}
template <>
constexpr DType dtype_of<float>() {
  return DType::kFloat32;
}
template <>
constexpr DType dtype_of<double>() {
  return DType::kFloat64;
}

class NpyArray {
 public:
  NpyArray() = default;

  // Maps the file copy-on-write (a write never reaches the file); throws loom::Error naming the
  // file on a bad header or size.
  static NpyArray map(const std::string& path);
  // An in-memory array (takes ownership of `bytes`).
  static NpyArray from_bytes(DType dtype, std::vector<std::int64_t> shape, std::vector<char> bytes);
  // Rows [begin, end) along the first dimension, sharing this array's memory (no copy).
  NpyArray slice(std::int64_t begin, std::int64_t end) const;

  bool empty() const { return data_ == nullptr && size() == 0; }
  DType dtype() const { return dtype_; }
  const std::vector<std::int64_t>& shape() const { return shape_; }
  int ndim() const { return static_cast<int>(shape_.size()); }
  std::int64_t size() const;  // number of elements
  std::int64_t rows() const { return shape_.empty() ? 1 : shape_[0]; }
  std::int64_t cols() const;  // product of dims after the first (1 for a vector)
  std::size_t nbytes() const { return static_cast<std::size_t>(size()) * dtype_size(dtype_); }
  const void* data() const { return data_; }
  const std::string& path() const { return path_; }

  // Typed view; throws if T does not match the stored dtype.
  template <class T>
  std::span<const T> span() const {
    if (dtype_of<T>() != dtype_)
      throw Error::in_file(path_, 0, "expected dtype " + dtype_name(dtype_of<T>()) + ", found " + dtype_name(dtype_));
    return {static_cast<const T*>(data_), static_cast<std::size_t>(size())};
  }

 private:
  std::shared_ptr<const void> holder_;
  const void* data_ = nullptr;
  DType dtype_ = DType::kFloat32;
  std::vector<std::int64_t> shape_;
  std::string path_;
};

// Writes `data` (nbytes = prod(shape) * dtype_size) atomically to `path`.
void write_npy(const std::string& path, DType dtype, const std::vector<std::int64_t>& shape, const void* data);

template <class T>
void write_npy(const std::string& path, std::span<const T> data, std::vector<std::int64_t> shape = {}) {
  if (shape.empty()) shape = {static_cast<std::int64_t>(data.size())};
  write_npy(path, dtype_of<T>(), shape, data.data());
}
template <class T>
void write_npy(const std::string& path, const std::vector<T>& data, std::vector<std::int64_t> shape = {}) {
  write_npy(path, std::span<const T>(data), std::move(shape));
}

// An .npy file written row by row, its length known only at the end: rows are appended to a
// temporary file (AtomicFile); finish() writes the header for the rows appended and renames it
// into place; destroyed unfinished, the temporary is removed. The header has the length of the
// one write_npy() writes for the final shape (128 bytes for any shape of up to 3 dimensions
// that fits in memory or on disk), so the file is byte-identical to write_npy()'s.
class NpyWriter {
 public:
  // `row_shape`: the dimensions after the first (e.g. {feat_dim}); empty for a vector.
  NpyWriter(std::string path, DType dtype, std::vector<std::int64_t> row_shape = {});
  // Appends `rows` rows of row_shape elements of dtype (throws Error naming the file on a failed
  // write, e.g. a full disk).
  void append(const void* data, std::int64_t rows);
  template <class T>
  void append(std::span<const T> values) {
    append(values.data(), static_cast<std::int64_t>(values.size() * sizeof(T)) / row_bytes_);
  }
  std::int64_t rows() const { return rows_; }
  void finish();

 private:
  std::vector<std::int64_t> shape() const;
  const std::string& path_of() const { return file_.final_path(); }
  core::AtomicFile file_;
  DType dtype_;
  std::vector<std::int64_t> row_shape_;
  std::int64_t row_bytes_ = 0, rows_ = 0;
  std::size_t reserved_ = 0;
};

// Reads a whole array into a vector of T, converting integer or float types as needed.
template <class T>
std::vector<T> read_npy_as(const std::string& path);
// Every value of `a` as T, converted as read_npy_as does.
template <class T>
std::vector<T> values_as(const NpyArray& a);

}  // namespace loom::format
