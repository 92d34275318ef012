// JSON-lines metrics: one JSON object per line (an epoch, an event), flushed as written so a
// crashed run still leaves every finished line. An empty path disables the log. A log that
// replaces an existing file (not `append`) is written under a temporary name and renamed onto it
// when the log closes, so a run killed on the way leaves the old file whole.
#pragma once

#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

namespace loom::core {

class MetricsLog {
 public:
  MetricsLog() = default;
  explicit MetricsLog(const std::string& path, bool append = false);
  ~MetricsLog();
  MetricsLog(const MetricsLog&) = delete;
  MetricsLog& operator=(const MetricsLog&) = delete;

  bool enabled() const { return file_ != nullptr; }
  void write(const nlohmann::json& record);
  // Closes the log and removes what it wrote (a file it created; the temporary of one it was to
  // replace, which stays as it was; lines it appended stay): for a run that must leave nothing.
  void discard();

 private:
  std::FILE* file_ = nullptr;
  std::string path_;
  std::string replacing_;  // the file renamed onto at close, or ""
  bool created_ = false;   // path_ did not exist before this log
};

}  // namespace loom::core
