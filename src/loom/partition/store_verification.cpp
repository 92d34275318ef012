#include "loom/partition/store_verification.hpp"

#include <atomic>
#include <filesystem>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "loom/format/digest.hpp"
#include "loom/core/error.hpp"
#include "loom/core/fs.hpp"
#include "loom/core/parallel.hpp"
#include "loom/graph/info.hpp"
#include "loom/partition/partitioned_store.hpp"

namespace loom::partition {

namespace {

// Every recorded digest of `folders`, digested again; throws naming the first that differs.
void check_folders(const std::vector<std::string>& folders) {
  for (const auto& folder : folders) {
    for (const auto& c : format::verify_digests(folder)) {
      if (!c.ok())
        throw Error::in_file(c.path_in(folder), 0,
                             fmt::format("digest {}, meta.json records {}: the file changed since the store was "
                                         "written (a bad copy, an edit); `loom check {}` lists every problem, "
                                         "--no-verify skips this check",
                                         c.found, c.expected, folder));
    }
  }
}

}  // namespace

std::vector<std::string> mapped_folders(const std::string& dir, int part) {
  if (graph::store_kind(dir) != graph::StoreKind::kPartitioned) return {dir};
  std::vector<std::string> folders{dir, dir + "/topology"};
  if (part >= 0) {
    folders.push_back(dir + "/part-" + std::to_string(part));
    return folders;
  }
  const auto meta =
      PartitionedMeta::from_json(nlohmann::json::parse(core::read_text_file(dir + "/meta.json")), dir + "/meta.json");
  for (int k = 0; k < meta.num_parts(); ++k) folders.push_back(dir + "/part-" + std::to_string(k));
  return folders;
}

StoreVerification::StoreVerification(std::vector<std::string> folders) : folders_(std::move(folders)) {
  if (!format::digest_verification()) {
    folders_.clear();
    return;
  }
  std::int64_t bytes = 0;
  for (const auto& folder : folders_)
    if (std::filesystem::exists(folder + "/meta.json")) bytes += format::digested_bytes(folder);
  if (bytes <= kVerifyAtOnceBytes) return;  // wait() checks them
  background_ = std::async(std::launch::async, [folders = folders_] {
    core::set_num_threads(1);  // beside the setup it overlaps, not against it
    check_folders(folders);
  });
}

StoreVerification::~StoreVerification() {
  if (background_.valid()) background_.wait();
}

void StoreVerification::wait() {
  if (background_.valid()) {
    background_.get();
  } else {
    check_folders(folders_);
  }
  folders_.clear();
}

void verify_store(const std::vector<std::string>& folders) { StoreVerification(folders).wait(); }

}  // namespace loom::partition
