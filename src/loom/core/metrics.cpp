#include "loom/core/metrics.hpp"

#include <cerrno>
#include <cstring>

#include "loom/core/error.hpp"

namespace loom::core {

MetricsLog::MetricsLog(const std::string& path, bool append) : path_(path) {
  if (path.empty()) return;
  file_ = std::fopen(path.c_str(), append ? "a" : "w");
  if (!file_) throw Error::in_file(path, 0, std::string("cannot write metrics log: ") + std::strerror(errno));
}

MetricsLog::~MetricsLog() {
  if (file_) std::fclose(file_);
}

void MetricsLog::write(const nlohmann::json& record) {
  if (!file_) return;
  const std::string line = record.dump() + "\n";
  if (std::fwrite(line.data(), 1, line.size(), file_) != line.size() || std::fflush(file_) != 0)
    throw Error::in_file(path_, 0, std::string("write failed: ") + std::strerror(errno));
}

}  // namespace loom::core
