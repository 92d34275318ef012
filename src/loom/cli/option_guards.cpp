#include "loom/cli/option_guards.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>

#include "loom/core/error.hpp"
#include "loom/core/parallel.hpp"

namespace loom::cli {

namespace {

// The validators' messages: "" when `text` passes, or is no number at all (CLI11's conversion
// then says so).
std::string finite_number(const std::string& text) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);  // "1e999" is infinite, "1e-999" 0
  if (end == text.c_str() || *end != '\0' || std::isfinite(value)) return "";
  return "'" + text + "' is not a finite number";
}

// An integer as people write it: decimal digits with an optional sign, or 0x and hex digits.
// strtoll (CLI11's conversion) reads "010" as octal 8 and wraps "-1" into an unsigned option's
// largest value, and saturates past 2^63 silently.
std::string whole_number(const std::string& text, bool is_unsigned) {
  std::size_t digits = text.starts_with('-') || text.starts_with('+') ? 1 : 0;
  if (text.size() > digits + 2 && text[digits] == '0' && (text[digits + 1] == 'x' || text[digits + 1] == 'X'))
    return "";  // hexadecimal: CLI11 converts it and refuses what does not fit
  if (digits == text.size() || text.find_first_not_of("0123456789", digits) != std::string::npos)
    return "";  // no integer at all: CLI11's conversion says so
  if (is_unsigned && text.starts_with('-')) return "'" + text + "' is negative; it must be >= 0";
  if (text.size() > digits + 1 && text[digits] == '0')
    return "'" + text + "' has a leading zero (read as octal by some tools): write it without";
  errno = 0;
  static_cast<void>(std::strtoll(text.c_str(), nullptr, 10));
  if (errno == ERANGE) return "'" + text + "' is out of range";
  return "";
}

std::string thread_count(const std::string& text) {
  char* end = nullptr;
  const long long value = std::strtoll(text.c_str(), &end, 10);
  if (end == text.c_str() || *end != '\0') return "";
  try {
    core::check_thread_count(value, "--threads");
  } catch (const Error& e) {
    return e.message();
  }
  return "";
}

void guard(CLI::App& app) {
  for (CLI::Option* option : app.get_options()) {
    const std::string full = option->get_type_name();  // "INT", or "INT:<validator>"
    const std::string type = full.substr(0, full.find(':'));
    if (type == "FLOAT") option->check(CLI::Validator(finite_number, "", "finite"));
    if (type == "INT" || type == "UINT")
      option->check(CLI::Validator(
          [is_unsigned = type == "UINT"](const std::string& text) { return whole_number(text, is_unsigned); }, "",
          "integer"));
    if (option->check_lname("threads")) option->check(CLI::Validator(thread_count, "", "thread count"));
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) guard(*sub);
}

}  // namespace

void add_option_guards(CLI::App& app) { guard(app); }

}  // namespace loom::cli
