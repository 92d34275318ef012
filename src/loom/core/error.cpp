#include "loom/core/error.hpp"

namespace loom {

Error Error::in_file(const std::string& file, std::int64_t line, const std::string& message) {
  std::string full = line > 0 ? fmt::format("{}:{}: {}", file, line, message) : fmt::format("{}: {}", file, message);
  Error e(full, message);
  e.file_ = file;
  e.line_ = line;
  return e;
}

Error Error::in_argument(const std::string& name, const std::string& message) {
  Error e(fmt::format("argument {}: {}", name, message), message);
  e.argument_ = name;
  return e;
}

}  // namespace loom
