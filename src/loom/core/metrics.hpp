// JSON-lines metrics: one JSON object per line (an epoch, an event), flushed as written so a
// crashed run still leaves every finished line. An empty path disables the log.
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

 private:
  std::FILE* file_ = nullptr;
  std::string path_;
};

}  // namespace loom::core
