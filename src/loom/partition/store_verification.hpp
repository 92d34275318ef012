// Digests enforced where a store's bytes are read: a command verifies the files it maps against the
// digests their meta.json records (format/digest.hpp) before it derives anything from them, and stops
// with the mismatch named. Files up to kVerifyAtOnceBytes in all are verified at once; more, in the
// background on one thread, which a trainer joins before its first step (so the check costs little
// of the setup it overlaps). `--no-verify` skips it, for users who
// know (format::set_digest_verification); `loom check DIR` lists every problem of a store.
#pragma once

#include <cstdint>
#include <future>
#include <string>
#include <vector>

namespace loom::partition {

// The store folders a reader of `dir` maps: the folder itself (a graph store), or for a
// partitioned store its own folder, topology/ and part-<part> (every part when part < 0).
std::vector<std::string> mapped_folders(const std::string& dir, int part = -1);

inline constexpr std::int64_t kVerifyAtOnceBytes = std::int64_t{256} << 20;

class StoreVerification {
 public:
  StoreVerification() = default;  // verifies nothing
  // Starts verifying every file the meta.json of `folders` records a digest for (nothing when
  // verification is off).
  explicit StoreVerification(std::vector<std::string> folders);
  ~StoreVerification();  // waits for a background check (its error, if any, dropped)
  StoreVerification(StoreVerification&&) = default;
  StoreVerification& operator=(StoreVerification&&) = default;

  // Waits for the check; throws Error naming the first file whose digest differs from the record.
  void wait();

 private:
  std::vector<std::string> folders_;
  std::future<void> background_;
};

// Verifies `folders` now (as StoreVerification(folders).wait()).
void verify_store(const std::vector<std::string>& folders);

}  // namespace loom::partition
