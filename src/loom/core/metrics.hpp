// JSON-lines metrics: one JSON object per line (an epoch, an event). An empty path disables the
// log. A log is written where it is read, so it can be followed while the run goes on; each record
// is one write(2), and a write that fails (a full disk) takes back what it wrote of its record, so
// the file holds whole records only, also after a crash or a kill. A log that replaces an existing
// file (--overwrite) is written under a temporary name and renamed onto it when it closes (or when
// a signal ends the run: core/stop_signal.hpp), so a run killed on the way leaves the old file whole.
// A resumed run continues its log from what its checkpoint recorded of it (position()): the
// file's first `bytes` bytes must be that prefix (CRC-32), or the log belongs to another run and is
// refused, naming the option; the records after the prefix (written after the checkpoint, which
// the run writes again) are dropped when the resumed run writes its first record.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace loom::core {

// The first `bytes` bytes of a log and their CRC-32 (zlib's).
struct LogPrefix {
  std::uint64_t bytes = 0;
  std::uint64_t crc32 = 0;
  nlohmann::json to_json() const { return {{"bytes", bytes}, {"crc32", crc32}}; }
  // From a checkpoint's state.json; Error naming `where` when malformed.
  static LogPrefix from_json(const nlohmann::json& j, const std::string& where);
};

class MetricsLog {
 public:
  MetricsLog() = default;
  // A new log at `path` (an existing file there is replaced: the caller has checked --overwrite).
  explicit MetricsLog(const std::string& path, const std::string& argument = "--metrics");
  // Resuming: the log at `path` continues from `prefix` (nullopt: the checkpoint recorded none, so
  // an existing file is refused unless `overwrite`, which replaces it).
  MetricsLog(const std::string& path, std::optional<LogPrefix> prefix, bool overwrite,
             const std::string& argument = "--metrics");
  ~MetricsLog();  // renames a replacing log into place
  MetricsLog(const MetricsLog&) = delete;
  MetricsLog& operator=(const MetricsLog&) = delete;

  bool enabled() const { return fd_ >= 0; }
  void write(const nlohmann::json& record);
  // What the log holds so far, for a checkpoint.
  LogPrefix position() const { return written_; }
  // Closes the log and takes back what this run wrote: the path is as it was before the run.
  void discard();

 private:
  void open_in_place(bool append);
  void open_replacing();
  void append_raw(const std::string& bytes);

  int fd_ = -1;
  std::string path_, temp_, argument_;  // temp_: "" when written in place
  int slot_ = -1;                       // in core/fs.hpp's registry of temporaries
  bool created_ = false;                // path_ did not exist before this log
  LogPrefix written_;
  std::uint64_t resumed_bytes_ = 0;  // resumed in place: the checkpoint's prefix
  std::uint64_t found_bytes_ = 0;    // and the file's size, cut to that prefix at the first write
};

}  // namespace loom::core
