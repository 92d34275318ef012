// loom::Error: the one exception type Loom throws for bad input or failed operations.
// It carries where the problem is (a file and line, or a CLI argument) so the message a user
// sees names it. Library code throws; only main() turns an Error into an exit code.
// LOOM_CHECK(cond, fmt, args...) throws an Error with a formatted message when cond is false.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

#include <fmt/format.h>

namespace loom {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message), message_(message) {}

  // "FILE:LINE: message" (line 0 = whole file).
  static Error in_file(const std::string& file, std::int64_t line, const std::string& message);
  // "argument NAME: message".
  static Error in_argument(const std::string& name, const std::string& message);

  const std::string& file() const { return file_; }
  std::int64_t line() const { return line_; }
  const std::string& argument() const { return argument_; }
  // The bare message without the location prefix.
  const std::string& message() const { return message_; }

 private:
  Error(const std::string& full, std::string message) : std::runtime_error(full), message_(std::move(message)) {}
  std::string file_;
  std::int64_t line_ = 0;
  std::string argument_;
  std::string message_;
};

}  // namespace loom

#define LOOM_CHECK(cond, ...)                                     \
  do {                                                            \
    if (!(cond)) throw ::loom::Error(::fmt::format(__VA_ARGS__)); \
  } while (0)

#define LOOM_CHECK_ARG(cond, name, ...)                                                \
  do {                                                                                 \
    if (!(cond)) throw ::loom::Error::in_argument((name), ::fmt::format(__VA_ARGS__)); \
  } while (0)
