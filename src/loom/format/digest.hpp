// Digests of the files a store is made of: recorded in its meta.json ("digests": {file: digest})
// when a writer finishes it, and verified by `loom check`, so that a store copied between file
// systems or hosts can be trusted (or not) before a long run; checkpoints record theirs too
// (checkpoint_dir.hpp). The digest is zlib's CRC-32 of the file's bytes, "crc32:xxxxxxxx",
// computed over 8 MiB chunks in parallel and combined.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "loom/core/progress.hpp"

namespace loom::format {

struct FileDigest {
  std::uint64_t bytes = 0;
  std::uint64_t crc32 = 0;
  std::string text() const;  // "crc32:xxxxxxxx"
};
// Throws Error naming the file when it cannot be read. `progress` (may be null) counts bytes.
FileDigest file_digest(const std::string& path, core::ProgressBar* progress = nullptr);
// The CRC-32 of `bytes` bytes in memory (8 MiB pieces in parallel), and that of bytes A then B
// from A's and B's (for a file digested as it is read: its header, then its rows chunk by chunk).
std::uint64_t crc32_of(const void* data, std::int64_t bytes);
std::uint64_t crc32_then(std::uint64_t first, std::uint64_t second, std::int64_t second_bytes);

// Sets "digests" in dir/meta.json to the digest of every other regular file directly in `dir`,
// and seals meta.json itself (seal_meta), rewriting it atomically.
void record_digests(const std::string& dir);

// meta.json's own digest: "meta_digest" holds the CRC-32 of the document without that key (its
// compact dump, keys in order), so that an edit of any field (num_classes, directed, a digest) is
// found. A meta.json written before stores were sealed has none.
void seal_meta(nlohmann::json& meta);
// Throws Error naming `path` when `meta` carries a meta_digest that its content does not match.
void check_meta_seal(const nlohmann::json& meta, const std::string& path);

// Whether commands verify what they read against the digests a store records (meta.json's seal at
// every open; the files' digests where a command reads them: partition/store_verification.hpp).
// `loom --no-verify` turns it off, for users who know.
void set_digest_verification(bool on);
bool digest_verification();

struct DigestCheck {
  std::string file;      // relative to the store directory (absolute: an external file)
  std::string expected;  // as recorded
  std::string found;     // now ("missing" when the file is gone)
  bool ok() const { return expected == found; }
  std::string path_in(const std::string& dir) const { return file.starts_with('/') ? file : dir + "/" + file; }
};
// External files a store maps (a feature file left where it was imported from) are recorded under
// "external_digests" ({absolute path: digest}) by the writer, kept by record_digests, and verified
// with the store's own files.
// Every file that dir/meta.json records a digest for, digested again, and meta.json against its
// seal (where it has one); empty when it records none.
std::vector<DigestCheck> verify_digests(const std::string& dir, core::ProgressBar* progress = nullptr);
// Bytes of the files dir/meta.json records digests for (for a progress bar's total).
std::int64_t digested_bytes(const std::string& dir);

}  // namespace loom::format
