#include "loom/core/metrics.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "loom/core/error.hpp"
#include "loom/core/fs.hpp"

namespace loom::core {

MetricsLog::MetricsLog(const std::string& path, bool append) : path_(path) {
  if (path.empty()) return;
  std::error_code ec;
  if (!append && std::filesystem::exists(path, ec)) {
    replacing_ = path;
    path_ = path + "." + temp_suffix();
  }
  created_ = !std::filesystem::exists(path_, ec);
  file_ = std::fopen(path_.c_str(), append ? "a" : "w");
  if (!file_) throw Error::in_file(path, 0, std::string("cannot write metrics log: ") + std::strerror(errno));
}

MetricsLog::~MetricsLog() {
  if (!file_) return;
  std::fclose(file_);
  if (!replacing_.empty()) std::rename(path_.c_str(), replacing_.c_str());
}

void MetricsLog::discard() {
  if (!file_) return;
  std::fclose(file_);
  file_ = nullptr;
  if (created_) std::remove(path_.c_str());
}

void MetricsLog::write(const nlohmann::json& record) {
  if (!file_) return;
  const std::string line = record.dump() + "\n";
  if (std::fwrite(line.data(), 1, line.size(), file_) != line.size() || std::fflush(file_) != 0)
    throw Error::in_file(path_, 0, std::string("write failed: ") + std::strerror(errno));
}

}  // namespace loom::core
