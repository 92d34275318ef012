#include "loom/cli/option_guards.hpp"

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
    if (option->get_type_name() == "FLOAT") option->check(CLI::Validator(finite_number, "", "finite"));
    if (option->check_lname("threads")) option->check(CLI::Validator(thread_count, "", "thread count"));
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) guard(*sub);
}

}  // namespace

void add_option_guards(CLI::App& app) { guard(app); }

}  // namespace loom::cli
