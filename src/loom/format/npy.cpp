#include "loom/format/npy.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <numeric>

#include "loom/core/fs.hpp"

namespace loom::format {

std::string dtype_descr(DType dtype) {
  switch (dtype) {
    case DType::kBool: return "|b1";
    case DType::kInt8: return "|i1";
    case DType::kUInt8: return "|u1";
    case DType::kInt32: return "<i4";
    case DType::kInt64: return "<i8";
    case DType::kUInt64: return "<u8";
    case DType::kFloat16: return "<f2";
    case DType::kBFloat16: return "<V2";
    case DType::kFloat32: return "<f4";
    case DType::kFloat64: return "<f8";
  }
  return "?";
}

namespace {

DType parse_descr(const std::string& descr, const std::string& path) {
  static const std::pair<const char*, DType> table[] = {
      {"|b1", DType::kBool},    {"|i1", DType::kInt8},   {"|u1", DType::kUInt8},   {"<i4", DType::kInt32},
      {"<i8", DType::kInt64},   {"<u8", DType::kUInt64}, {"<f2", DType::kFloat16}, {"<f4", DType::kFloat32},
      {"<f8", DType::kFloat64}, {"=i4", DType::kInt32},  {"=i8", DType::kInt64},   {"=f4", DType::kFloat32},
      {"=f8", DType::kFloat64}, {"|?", DType::kBool},    {"<b1", DType::kBool},    {"<V2", DType::kBFloat16},
      {"|V2", DType::kBFloat16}};
  for (const auto& [name, dtype] : table)
    if (descr == name) return dtype;
  throw Error::in_file(path, 0, "unsupported .npy dtype '" + descr + "'");
}

// Finds the value text following 'key': in a numpy header dict.
std::string header_field(const std::string& header, const std::string& key, const std::string& path) {
  const auto pos = header.find("'" + key + "'");
  if (pos == std::string::npos) throw Error::in_file(path, 0, "malformed .npy header: no '" + key + "'");
  auto colon = header.find(':', pos);
  if (colon == std::string::npos) throw Error::in_file(path, 0, "malformed .npy header near '" + key + "'");
  ++colon;
  while (colon < header.size() && header[colon] == ' ') ++colon;
  std::size_t end = colon;
  if (header[colon] == '(') {
    end = header.find(')', colon);
    if (end == std::string::npos) throw Error::in_file(path, 0, "malformed .npy shape");
    return header.substr(colon, end - colon + 1);
  }
  if (header[colon] == '\'') {
    end = header.find('\'', colon + 1);
    return header.substr(colon + 1, end - colon - 1);
  }
  end = header.find_first_of(",}", colon);
  return header.substr(colon, end - colon);
}

std::vector<std::int64_t> parse_shape(const std::string& text, const std::string& path) {
  std::vector<std::int64_t> shape;
  std::size_t i = 1;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == ',')) ++i;
    if (i >= text.size() || text[i] == ')') break;
    std::size_t used = 0;
    try {
      shape.push_back(std::stoll(text.substr(i), &used));
    } catch (const std::exception&) {
      throw Error::in_file(path, 0, "malformed .npy shape " + text);
    }
    if (shape.back() < 0) throw Error::in_file(path, 0, "negative dimension in .npy shape " + text);
    i += used;
  }
  // The element count and its bytes must fit in 64 bits (the data must fit in the file anyway).
  std::int64_t count = 1;
  for (const std::int64_t d : shape)
    if (__builtin_mul_overflow(count, d, &count) || count > std::numeric_limits<std::int64_t>::max() / 16)
      throw Error::in_file(path, 0, "impossibly large .npy shape " + text);
  return shape;
}

std::int64_t product(const std::vector<std::int64_t>& shape) {
  return std::accumulate(shape.begin(), shape.end(), std::int64_t{1}, std::multiplies<>());
}

}  // namespace

std::int64_t NpyHeader::size() const { return product(shape); }

std::size_t npy_header_bytes(std::span<const unsigned char> prefix, const std::string& path) {
  if (prefix.size() < 10) throw Error::in_file(path, 0, "not a .npy file (too short)");
  if (std::memcmp(prefix.data(), "\x93NUMPY", 6) != 0) throw Error::in_file(path, 0, "not a .npy file (bad magic)");
  if (prefix[6] == 1) return 10 + (prefix[8] | (prefix[9] << 8));
  if (prefix.size() < 12) throw Error::in_file(path, 0, "truncated .npy header");
  return 12 + (prefix[8] | (prefix[9] << 8) | (prefix[10] << 16) | (static_cast<std::size_t>(prefix[11]) << 24));
}

NpyHeader parse_npy_header(std::span<const unsigned char> bytes, const std::string& path) {
  const std::size_t prefix = bytes[6] == 1 ? 10 : 12;
  const std::string text(reinterpret_cast<const char*>(bytes.data() + prefix), bytes.size() - prefix);
  NpyHeader header;
  header.dtype = parse_descr(header_field(text, "descr", path), path);
  if (header_field(text, "fortran_order", path).find("True") != std::string::npos)
    throw Error::in_file(path, 0, "Fortran-order .npy arrays are not supported; save with order='C'");
  header.shape = parse_shape(header_field(text, "shape", path), path);
  header.data_offset = bytes.size();
  // numpy pads the header so the data starts on a 64-byte boundary (16 before numpy 1.14): values
  // read in place must start on a multiple of their size.
  if (header.data_offset % dtype_size(header.dtype) != 0)
    throw Error::in_file(path, 0,
                         "the .npy data starts at byte " + std::to_string(header.data_offset) +
                             ", not a multiple of its element size " + std::to_string(dtype_size(header.dtype)) +
                             " (numpy pads the header to 64 bytes; save the array again with numpy.save)");
  return header;
}

std::int64_t NpyArray::size() const { return product(shape_); }

std::int64_t NpyArray::cols() const {
  if (shape_.size() <= 1) return 1;
  return product(std::vector<std::int64_t>(shape_.begin() + 1, shape_.end()));
}

NpyArray NpyArray::map(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) throw Error::in_file(path, 0, std::string("cannot open: ") + std::strerror(errno));
  struct stat st {};
  ::fstat(fd, &st);
  const auto file_size = static_cast<std::size_t>(st.st_size);
  if (file_size < 10) {
    ::close(fd);
    throw Error::in_file(path, 0, "not a .npy file (too short)");
  }
  // Private and writable: pages stay shared with the page cache until written, and a write (say,
  // through a tensor a Python user was handed) lands in a private copy, never in the file. No swap
  // is reserved for those copies (MAP_NORESERVE): Linux's default overcommit heuristic refuses a
  // private writable mapping larger than memory and swap (a papers100M-shaped feat.npy is 28 GB).
  void* base = ::mmap(nullptr, file_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_NORESERVE, fd, 0);
  ::close(fd);
  if (base == MAP_FAILED) throw Error::in_file(path, 0, std::string("mmap failed: ") + std::strerror(errno));
  std::shared_ptr<const void> holder(base, [file_size](const void* p) { ::munmap(const_cast<void*>(p), file_size); });
  const auto* bytes = static_cast<const unsigned char*>(base);
  const std::size_t data_offset = npy_header_bytes({bytes, std::min<std::size_t>(file_size, 12)}, path);
  if (data_offset > file_size) throw Error::in_file(path, 0, "truncated .npy header");
  const NpyHeader header = parse_npy_header({bytes, data_offset}, path);
  NpyArray a;
  a.path_ = path;
  a.dtype_ = header.dtype;
  a.shape_ = header.shape;
  const std::size_t expected = data_offset + a.nbytes();
  if (file_size < expected)
    throw Error::in_file(
        path, 0, "truncated .npy data: " + std::to_string(file_size) + " bytes, expected " + std::to_string(expected));
  a.data_ = bytes + data_offset;
  a.holder_ = std::move(holder);
  return a;
}

NpyArray NpyArray::from_bytes(DType dtype, std::vector<std::int64_t> shape, std::vector<char> bytes) {
  NpyArray a;
  a.dtype_ = dtype;
  a.shape_ = std::move(shape);
  LOOM_CHECK(bytes.size() == a.nbytes(), "NpyArray::from_bytes: {} bytes for {} elements of {}", bytes.size(), a.size(),
             dtype_name(dtype));
  auto owned = std::make_shared<std::vector<char>>(std::move(bytes));
  a.data_ = owned->data();
  a.holder_ = std::shared_ptr<const void>(owned, owned->data());
  return a;
}

NpyArray NpyArray::slice(std::int64_t begin, std::int64_t end) const {
  LOOM_CHECK(!shape_.empty() && begin >= 0 && begin <= end && end <= rows(), "{}: rows [{}, {}) outside [0, {})", path_,
             begin, end, rows());
  NpyArray a = *this;
  a.shape_[0] = end - begin;
  a.data_ = static_cast<const char*>(data_) + begin * cols() * static_cast<std::int64_t>(dtype_size(dtype_));
  return a;
}

std::string npy_header(DType dtype, const std::vector<std::int64_t>& shape) {
  std::string dict = "{'descr': '" + dtype_descr(dtype) + "', 'fortran_order': False, 'shape': (";
  for (std::size_t i = 0; i < shape.size(); ++i)
    dict += std::to_string(shape[i]) + (shape.size() == 1 ? "," : (i + 1 < shape.size() ? ", " : ""));
  dict += "), }";
  const std::size_t unpadded = 10 + dict.size() + 1;
  dict.append((64 - unpadded % 64) % 64, ' ');
  dict += '\n';
  const unsigned char preamble[10] = {0x93,
                                      'N',
                                      'U',
                                      'M',
                                      'P',
                                      'Y',
                                      1,
                                      0,
                                      static_cast<unsigned char>(dict.size() & 0xff),
                                      static_cast<unsigned char>(dict.size() >> 8)};
  return std::string(reinterpret_cast<const char*>(preamble), 10) + dict;
}

void write_npy(const std::string& path, DType dtype, const std::vector<std::int64_t>& shape, const void* data) {
  const std::string header = npy_header(dtype, shape);
  const std::size_t nbytes = static_cast<std::size_t>(product(shape)) * dtype_size(dtype);
  core::AtomicFile out(path);
  std::FILE* f = out.stream();
  bool ok = std::fwrite(header.data(), 1, header.size(), f) == header.size();
  ok = ok && (nbytes == 0 || std::fwrite(data, 1, nbytes, f) == nbytes);
  if (!ok) throw Error::in_file(path, 0, std::string("write failed: ") + std::strerror(errno));
  out.commit();
}

NpyWriter::NpyWriter(std::string path, DType dtype, std::vector<std::int64_t> row_shape)
    : file_(std::move(path)), dtype_(dtype), row_shape_(std::move(row_shape)) {
  row_bytes_ = static_cast<std::int64_t>(dtype_size(dtype_));
  for (const auto d : row_shape_) row_bytes_ *= d;
  reserved_ = npy_header(dtype_, shape()).size();
  const std::string blank(reserved_, ' ');
  if (std::fwrite(blank.data(), 1, blank.size(), file_.stream()) != blank.size())
    throw Error::in_file(path_of(), 0, std::string("write failed: ") + std::strerror(errno));
}

std::vector<std::int64_t> NpyWriter::shape() const {
  std::vector<std::int64_t> shape{rows_};
  shape.insert(shape.end(), row_shape_.begin(), row_shape_.end());
  return shape;
}

void NpyWriter::append(const void* data, std::int64_t rows) {
  const auto bytes = static_cast<std::size_t>(rows * row_bytes_);
  if (bytes > 0 && std::fwrite(data, 1, bytes, file_.stream()) != bytes)
    throw Error::in_file(path_of(), 0, std::string("write failed: ") + std::strerror(errno));
  rows_ += rows;
}

void NpyWriter::finish() {
  const std::string header = npy_header(dtype_, shape());
  LOOM_CHECK(header.size() == reserved_, "{}: a .npy header of {} bytes where {} were reserved", path_of(),
             header.size(), reserved_);
  std::FILE* f = file_.stream();
  if (std::fseek(f, 0, SEEK_SET) != 0 || std::fwrite(header.data(), 1, header.size(), f) != header.size())
    throw Error::in_file(path_of(), 0, std::string("write failed: ") + std::strerror(errno));
  file_.commit();
}

template <class T>
std::vector<T> read_npy_as(const std::string& path) {
  return values_as<T>(NpyArray::map(path));
}

template <class T>
std::vector<T> values_as(const NpyArray& a) {
  std::vector<T> out(static_cast<std::size_t>(a.size()));
  auto convert = [&](auto span) {
    for (std::size_t i = 0; i < span.size(); ++i) {
      if constexpr (std::is_same_v<std::decay_t<decltype(span[i])>, Half>)
        out[i] = static_cast<T>(half_to_float(span[i]));
      else if constexpr (std::is_same_v<std::decay_t<decltype(span[i])>, BFloat16>)
        out[i] = static_cast<T>(bfloat16_to_float(span[i]));
      else
        out[i] = static_cast<T>(span[i]);
    }
  };
  switch (a.dtype()) {
    case DType::kBool: convert(a.span<bool>()); break;
    case DType::kInt8: convert(a.span<std::int8_t>()); break;
    case DType::kUInt8: convert(a.span<std::uint8_t>()); break;
    case DType::kInt32: convert(a.span<std::int32_t>()); break;
    case DType::kInt64: convert(a.span<std::int64_t>()); break;
    case DType::kUInt64: convert(a.span<std::uint64_t>()); break;
    case DType::kFloat16: convert(a.span<Half>()); break;
    case DType::kBFloat16: convert(a.span<BFloat16>()); break;
    case DType::kFloat32: convert(a.span<float>()); break;
    case DType::kFloat64: convert(a.span<double>()); break;
  }
  return out;
}

template std::vector<std::int32_t> read_npy_as<std::int32_t>(const std::string&);
template std::vector<std::int64_t> read_npy_as<std::int64_t>(const std::string&);
template std::vector<float> read_npy_as<float>(const std::string&);
template std::vector<double> read_npy_as<double>(const std::string&);
template std::vector<std::int64_t> values_as<std::int64_t>(const NpyArray&);
template std::vector<float> values_as<float>(const NpyArray&);
template std::vector<double> values_as<double>(const NpyArray&);

}  // namespace loom::format
