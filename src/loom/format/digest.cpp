#include "loom/format/digest.hpp"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "loom/core/error.hpp"
#include "loom/core/fs.hpp"
#include "loom/core/parallel.hpp"

namespace fs = std::filesystem;

namespace loom::format {

namespace {

constexpr std::int64_t kChunk = 8 << 20;

nlohmann::json read_meta(const std::string& dir) {
  const std::string path = dir + "/meta.json";
  try {
    return nlohmann::json::parse(core::read_text_file(path));
  } catch (const nlohmann::json::exception& e) {
    throw Error::in_file(path, 0, std::string("invalid JSON: ") + e.what());
  }
}

constexpr const char* kMetaDigestKey = "meta_digest";
std::atomic<bool> g_verify{true};

std::string content_digest(const nlohmann::json& meta) {
  nlohmann::json content = meta;
  content.erase(kMetaDigestKey);
  const std::string text = content.dump();
  const uLong crc =
      ::crc32(::crc32(0L, Z_NULL, 0), reinterpret_cast<const Bytef*>(text.data()), static_cast<uInt>(text.size()));
  return FileDigest{text.size(), crc}.text();
}

}  // namespace

void set_digest_verification(bool on) { g_verify = on; }
bool digest_verification() { return g_verify; }

void seal_meta(nlohmann::json& meta) { meta[kMetaDigestKey] = content_digest(meta); }

void check_meta_seal(const nlohmann::json& meta, const std::string& path) {
  if (!meta.is_object() || !meta.contains(kMetaDigestKey)) return;
  const nlohmann::json& recorded = meta[kMetaDigestKey];
  const std::string found = content_digest(meta);
  if (recorded.is_string() && recorded.get<std::string>() == found) return;
  throw Error::in_file(path, 0,
                       fmt::format("its content's digest is {}, its meta_digest {}: meta.json changed since the store "
                                   "was written (an edit, a bad copy); write the store again, or pass --no-verify to "
                                   "use it as it is",
                                   found, recorded.dump()));
}

std::string FileDigest::text() const { return fmt::format("crc32:{:08x}", static_cast<std::uint32_t>(crc32)); }

FileDigest file_digest(const std::string& path, core::ProgressBar* progress) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error::in_file(path, 0, "cannot be read");
  std::error_code ec;
  const auto size = static_cast<std::int64_t>(fs::file_size(path, ec));
  if (ec) {
    ::close(fd);
    throw Error::in_file(path, 0, "cannot be read: " + ec.message());
  }
  const std::int64_t chunks = (size + kChunk - 1) / kChunk;
  std::vector<uLong> crcs(static_cast<std::size_t>(chunks));
  std::vector<std::int64_t> lengths(static_cast<std::size_t>(chunks), 0);
  try {
    core::parallel_for(
        chunks,
        [&](std::int64_t c) {
          std::vector<unsigned char> buffer(static_cast<std::size_t>(std::min(kChunk, size - c * kChunk)));
          std::size_t got = 0;
          while (got < buffer.size()) {
            const ssize_t n =
                ::pread(fd, buffer.data() + got, buffer.size() - got, static_cast<off_t>(c * kChunk + got));
            if (n <= 0) throw Error::in_file(path, 0, fmt::format("read failed at byte {}", c * kChunk + got));
            got += static_cast<std::size_t>(n);
          }
          crcs[c] = ::crc32(::crc32(0L, Z_NULL, 0), buffer.data(), static_cast<uInt>(buffer.size()));
          lengths[c] = static_cast<std::int64_t>(buffer.size());
          if (progress != nullptr) progress->update(lengths[c]);
        },
        1);
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
  uLong crc = ::crc32(0L, Z_NULL, 0);
  for (std::int64_t c = 0; c < chunks; ++c) crc = ::crc32_combine(crc, crcs[c], static_cast<z_off_t>(lengths[c]));
  return {static_cast<std::uint64_t>(size), static_cast<std::uint64_t>(crc)};
}

std::uint64_t crc32_of(const void* data, std::int64_t bytes) {
  const std::int64_t pieces = (bytes + kChunk - 1) / kChunk;
  std::vector<uLong> crcs(static_cast<std::size_t>(pieces));
  const auto* base = static_cast<const Bytef*>(data);
  core::parallel_for(
      pieces,
      [&](std::int64_t c) {
        crcs[c] =
            ::crc32(::crc32(0L, Z_NULL, 0), base + c * kChunk, static_cast<uInt>(std::min(kChunk, bytes - c * kChunk)));
      },
      1);
  uLong crc = ::crc32(0L, Z_NULL, 0);
  for (std::int64_t c = 0; c < pieces; ++c)
    crc = ::crc32_combine(crc, crcs[c], static_cast<z_off_t>(std::min(kChunk, bytes - c * kChunk)));
  return crc;
}

std::uint64_t crc32_then(std::uint64_t first, std::uint64_t second, std::int64_t second_bytes) {
  return ::crc32_combine(static_cast<uLong>(first), static_cast<uLong>(second), static_cast<z_off_t>(second_bytes));
}

void record_digests(const std::string& dir) {
  nlohmann::json meta = read_meta(dir);
  nlohmann::json digests = nlohmann::json::object();
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.is_regular_file() && entry.path().filename() != "meta.json") names.push_back(entry.path().filename());
  std::sort(names.begin(), names.end());
  for (const auto& name : names) digests[name] = file_digest(dir + "/" + name).text();
  meta["digests"] = digests;
  seal_meta(meta);
  core::write_text_file(dir + "/meta.json", meta.dump(2) + "\n");
}

std::vector<DigestCheck> verify_digests(const std::string& dir, core::ProgressBar* progress) {
  const nlohmann::json meta = read_meta(dir);
  std::vector<DigestCheck> checks;
  if (!meta.is_object() || !meta.contains("digests") || !meta["digests"].is_object()) return checks;
  for (const auto& [name, expected] : meta["digests"].items()) {
    const std::string path = dir + "/" + name;
    DigestCheck check{name, expected.is_string() ? expected.get<std::string>() : expected.dump(), "missing"};
    // Only the store's own files: a name with a folder in it would read outside the store.
    if (name.empty() || name.find('/') != std::string::npos || name == "." || name == ".." || name == "meta.json")
      check.found = "not a file of the store";
    else if (std::error_code ec; fs::is_regular_file(path, ec))
      check.found = file_digest(path, progress).text();
    else if (ec && ec != std::errc::no_such_file_or_directory)
      check.found = "unreadable (" + ec.message() + ")";
    checks.push_back(std::move(check));
  }
  if (meta.contains("external_digests") && meta["external_digests"].is_object())
    for (const auto& [path, expected] : meta["external_digests"].items()) {
      DigestCheck check{path, expected.is_string() ? expected.get<std::string>() : expected.dump(), "missing"};
      if (std::error_code ec; fs::is_regular_file(path, ec)) check.found = file_digest(path, progress).text();
      checks.push_back(std::move(check));
    }
  if (meta.contains(kMetaDigestKey)) {
    const nlohmann::json& recorded = meta[kMetaDigestKey];
    checks.push_back(
        {"meta.json", recorded.is_string() ? recorded.get<std::string>() : recorded.dump(), content_digest(meta)});
  }
  return checks;
}

std::int64_t digested_bytes(const std::string& dir) {
  const nlohmann::json meta = read_meta(dir);
  std::int64_t bytes = 0;
  if (!meta.is_object() || !meta.contains("digests") || !meta["digests"].is_object()) return 0;
  for (const auto& [name, expected] : meta["digests"].items()) {
    std::error_code ec;
    const auto size = fs::file_size(dir + "/" + name, ec);
    if (!ec) bytes += static_cast<std::int64_t>(size);
  }
  if (meta.contains("external_digests") && meta["external_digests"].is_object())
    for (const auto& [path, expected] : meta["external_digests"].items()) {
      std::error_code ec;
      const auto size = fs::file_size(path, ec);
      if (!ec) bytes += static_cast<std::int64_t>(size);
    }
  return bytes;
}

}  // namespace loom::format
