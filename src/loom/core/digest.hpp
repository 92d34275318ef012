// Digests of the files a store is made of: recorded in its meta.json ("digests": {file: digest})
// when a writer finishes it, and verified by `loom check`, so that a store copied between file
// systems or hosts can be trusted (or not) before a long run; checkpoints record theirs too
// (checkpoint_dir.hpp). The digest is zlib's CRC-32 of the file's bytes, "crc32:xxxxxxxx",
// computed over 8 MiB chunks in parallel and combined.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "loom/core/progress.hpp"

namespace loom::core {

struct FileDigest {
  std::uint64_t bytes = 0;
  std::uint64_t crc32 = 0;
  std::string text() const;  // "crc32:xxxxxxxx"
};
// Throws Error naming the file when it cannot be read. `progress` (may be null) counts bytes.
FileDigest file_digest(const std::string& path, ProgressBar* progress = nullptr);

// Sets "digests" in dir/meta.json to the digest of every other regular file directly in `dir`,
// rewriting meta.json atomically.
void record_digests(const std::string& dir);

struct DigestCheck {
  std::string file;      // relative to the store directory
  std::string expected;  // as recorded
  std::string found;     // now ("missing" when the file is gone)
  bool ok() const { return expected == found; }
};
// Every file that dir/meta.json records a digest for, digested again; empty when it records none.
std::vector<DigestCheck> verify_digests(const std::string& dir, ProgressBar* progress = nullptr);
// Bytes of the files dir/meta.json records digests for (for a progress bar's total).
std::int64_t digested_bytes(const std::string& dir);

}  // namespace loom::core
