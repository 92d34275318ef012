// The arrays of an .npz archive (np.savez / np.savez_compressed: one .npy member per key), read
// as streams: a large array front to back in chunks of elements, a small one whole. Missing
// keys, malformed headers and truncated members throw Error naming archive and key.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "loom/format/npy.hpp"
#include "loom/format/zip_archive.hpp"

namespace loom::format {

// The keys of an .npz archive: its members' names without ".npy", sorted.
std::vector<std::string> npz_keys(const ZipArchive& archive);

class NpzArrayReader {
 public:
  // The array `key` of `archive`; throws Error naming both when it is not there.
  NpzArrayReader(const ZipArchive& archive, const std::string& key);
  DType dtype() const { return header_.dtype; }
  const std::vector<std::int64_t>& shape() const { return header_.shape; }
  std::int64_t size() const { return header_.size(); }
  // "archive.npz:key.npy", for messages.
  std::string where() const { return member_.where(); }

  // The next `count` elements in their stored dtype (count * dtype_size bytes into `out`).
  void read(void* out, std::int64_t count);
  void skip(std::int64_t count);
  std::int64_t position() const { return position_; }  // elements read or skipped
  // The elements left, whole, converted as values_as<T>.
  template <class T>
  std::vector<T> read_rest_as();

 private:
  ZipMemberReader member_;
  NpyHeader header_;
  std::int64_t position_ = 0;
};

}  // namespace loom::format
