#include "loom/format/npz_array.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace loom::format {

namespace {

const ZipMember& find_member(const ZipArchive& archive, const std::string& key) {
  if (const ZipMember* m = archive.find(key + ".npy")) return *m;
  throw Error::in_file(archive.path(), 0,
                       fmt::format("has no array '{}' (its arrays: {})", key, fmt::join(npz_keys(archive), ", ")));
}

}  // namespace

std::vector<std::string> npz_keys(const ZipArchive& archive) {
  std::vector<std::string> keys;
  for (const auto& m : archive.members())
    if (m.name.size() > 4 && m.name.ends_with(".npy")) keys.push_back(m.name.substr(0, m.name.size() - 4));
  std::sort(keys.begin(), keys.end());
  return keys;
}

NpzArrayReader::NpzArrayReader(const ZipArchive& archive, const std::string& key)
    : member_(archive, find_member(archive, key)) {
  if (member_.size() < 10) throw Error::in_file(where(), 0, "not a .npy member (too short)");
  unsigned char prefix[12] = {};
  member_.read_exact(prefix, 10);
  std::vector<unsigned char> bytes(prefix, prefix + 10);
  if (prefix[6] != 1) {
    member_.read_exact(prefix + 10, 2);
    bytes.insert(bytes.end(), prefix + 10, prefix + 12);
  }
  const std::size_t header_bytes = npy_header_bytes({prefix, bytes.size()}, where());
  if (header_bytes > member_.size()) throw Error::in_file(where(), 0, "truncated .npy header");
  bytes.resize(header_bytes);
  member_.read_exact(bytes.data() + (prefix[6] == 1 ? 10 : 12), header_bytes - (prefix[6] == 1 ? 10 : 12));
  header_ = parse_npy_header(bytes, where());
  const std::uint64_t data_bytes = static_cast<std::uint64_t>(header_.size()) * dtype_size(header_.dtype);
  if (member_.size() != header_bytes + data_bytes)
    throw Error::in_file(
        where(), 0,
        fmt::format("holds {} bytes of data, its header's shape needs {}", member_.size() - header_bytes, data_bytes));
}

void NpzArrayReader::read(void* out, std::int64_t count) {
  if (count < 0 || count > size() - position_)
    throw Error::in_file(where(), 0, fmt::format("{} elements wanted at element {} of {}", count, position_, size()));
  member_.read_exact(out, static_cast<std::size_t>(count) * dtype_size(header_.dtype));
  position_ += count;
}

void NpzArrayReader::skip(std::int64_t count) {
  if (count < 0 || count > size() - position_)
    throw Error::in_file(where(), 0, fmt::format("{} elements skipped at element {} of {}", count, position_, size()));
  member_.skip(static_cast<std::uint64_t>(count) * dtype_size(header_.dtype));
  position_ += count;
}

template <class T>
std::vector<T> NpzArrayReader::read_rest_as() {
  const std::int64_t count = size() - position_;
  std::vector<char> bytes(static_cast<std::size_t>(count) * dtype_size(header_.dtype));
  read(bytes.data(), count);
  return values_as<T>(NpyArray::from_bytes(header_.dtype, {count}, std::move(bytes)));
}

template std::vector<std::int64_t> NpzArrayReader::read_rest_as<std::int64_t>();
template std::vector<float> NpzArrayReader::read_rest_as<float>();
template std::vector<double> NpzArrayReader::read_rest_as<double>();

}  // namespace loom::format
