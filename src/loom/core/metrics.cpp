#include "loom/core/metrics.hpp"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "loom/core/error.hpp"
#include "loom/core/fs.hpp"
#include "loom/core/json_number.hpp"

namespace fs = std::filesystem;

namespace loom::core {

namespace {

std::uint64_t crc_of(std::uint64_t crc, const std::string& bytes) {
  return ::crc32(static_cast<uLong>(crc), reinterpret_cast<const Bytef*>(bytes.data()),
                 static_cast<uInt>(bytes.size()));
}

// Whether the file at `path` begins with `prefix`'s bytes.
bool begins_with(const std::string& path, const LogPrefix& prefix) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec) || fs::file_size(path, ec) < prefix.bytes) return false;
  std::string bytes = read_text_file(path);
  bytes.resize(prefix.bytes);
  return crc_of(0, bytes) == prefix.crc32;
}

}  // namespace

LogPrefix LogPrefix::from_json(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object() || !j.contains("bytes") || !j.contains("crc32"))
    throw Error::in_file(where, 0, "metrics_log must be an object with bytes and crc32");
  return {json_int<std::uint64_t>(j["bytes"], where + " (metrics_log.bytes)"),
          json_int<std::uint64_t>(j["crc32"], where + " (metrics_log.crc32)")};
}

MetricsLog::MetricsLog(const std::string& path, const std::string& argument) : path_(path), argument_(argument) {
  if (path.empty()) return;
  std::error_code ec;
  if (fs::exists(path_, ec))
    open_replacing();
  else
    open_in_place(/*append=*/false);
}

MetricsLog::MetricsLog(const std::string& path, std::optional<LogPrefix> prefix, bool overwrite,
                       const std::string& argument)
    : path_(path), argument_(argument) {
  if (path.empty()) return;
  std::error_code ec;
  const bool exists = fs::exists(path_, ec);
  if (prefix && exists && begins_with(path_, *prefix)) {
    open_in_place(/*append=*/true);
    written_ = *prefix;
    resumed_bytes_ = prefix->bytes;
    found_bytes_ = static_cast<std::uint64_t>(fs::file_size(path_, ec));
    return;
  }
  if (exists && !overwrite)
    throw Error::in_argument(
        argument_, prefix ? fmt::format("'{}' is not the log of the run being resumed (its first {} bytes are not "
                                        "what the checkpoint recorded): give another path, or --overwrite to "
                                        "replace it",
                                        path_, prefix->bytes)
                          : fmt::format("'{}' exists, and the checkpoint resumed records no log to tell whether it "
                                        "is this run's: give another path, or --overwrite to replace it",
                                        path_));
  if (prefix && prefix->bytes > 0 && !exists)
    spdlog::warn("{}: the log of the run being resumed is not there; a new one starts with this run", path_);
  if (exists)
    open_replacing();
  else
    open_in_place(/*append=*/false);
}

void MetricsLog::open_in_place(bool append) {
  std::error_code ec;
  created_ = !fs::exists(path_, ec);
  fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | (append ? 0 : O_TRUNC), 0644);
  if (fd_ < 0) throw Error::in_argument(argument_, fmt::format("cannot write '{}': {}", path_, std::strerror(errno)));
}

void MetricsLog::open_replacing() {
  remove_stale_temporaries(path_);
  temp_ = path_ + "." + temp_suffix();
  slot_ = register_temporary(temp_, path_);
  fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    unregister_temporary(slot_);
    throw Error::in_argument(argument_, fmt::format("cannot write '{}': {}", path_, std::strerror(errno)));
  }
}

MetricsLog::~MetricsLog() {
  if (fd_ < 0) return;
  const bool closed = ::close(fd_) == 0;
  if (!temp_.empty() && (!closed || std::rename(temp_.c_str(), path_.c_str()) != 0))
    spdlog::error("{}: the metrics log could not be written ({}); it is left unfinished at {}", path_,
                  std::strerror(errno), temp_);
  unregister_temporary(slot_);
}

void MetricsLog::discard() {
  if (fd_ < 0) return;
  // Resumed in place and cut to its prefix by a first record: the records appended since go.
  if (temp_.empty() && !created_ && found_bytes_ == 0 && written_.bytes > resumed_bytes_ &&
      ::ftruncate(fd_, static_cast<off_t>(resumed_bytes_)) != 0)
    spdlog::warn("{}: {}", path_, std::strerror(errno));
  ::close(fd_);
  fd_ = -1;
  if (!temp_.empty())
    std::remove(temp_.c_str());
  else if (created_)
    std::remove(path_.c_str());
  unregister_temporary(slot_);
}

void MetricsLog::append_raw(const std::string& bytes) {
  if (found_bytes_ > 0) {  // a resumed log drops what was written after its checkpoint
    if (::ftruncate(fd_, static_cast<off_t>(written_.bytes)) != 0)
      throw Error::in_file(path_, 0, std::string("cannot continue the log: ") + std::strerror(errno));
    found_bytes_ = 0;
  }
  for (std::size_t done = 0; done < bytes.size();) {
    const ssize_t n = ::write(fd_, bytes.data() + done, bytes.size() - done);
    if (n > 0) {
      done += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    const int error = n < 0 ? errno : ENOSPC;
    // Take back the part of the record that was written: the log holds whole records only.
    if (::ftruncate(fd_, static_cast<off_t>(written_.bytes)) != 0)
      spdlog::warn("{}: cannot take back a partial record: {}", path_, std::strerror(errno));
    throw Error::in_file(path_, 0, std::string("write failed: ") + std::strerror(error));
  }
  written_.crc32 = crc_of(written_.crc32, bytes);
  written_.bytes += bytes.size();
}

void MetricsLog::write(const nlohmann::json& record) {
  if (fd_ >= 0) append_raw(record.dump() + "\n");
}

}  // namespace loom::core
