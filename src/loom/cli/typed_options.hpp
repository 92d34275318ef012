// Options parsed into typed values once, at the CLI boundary, so that the library only ever sees
// typed values and a wrong value is a usage error (exit status 2) naming the option:
//   add_enum_option:    the words of a core::EnumNames table into the enum (help lists the words
//                       and the default);
//   add_fanouts_option: "15,10,5" (-1 = every neighbour) into a vector of fanouts.
#pragma once

#include <string>
#include <vector>

#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include "loom/core/enum_names.hpp"
#include "loom/core/error.hpp"
#include "loom/sample/neighbor_sampler.hpp"

namespace loom::cli {

template <class E, std::size_t N>
CLI::Option* add_enum_option(CLI::App& sub, const std::string& name, E& value, const core::EnumNames<E, N>& names,
                             const std::string& help) {
  // Replaces the word by the enum's number, which CLI11 then converts into `value`.
  const auto to_number = [names](std::string& word) -> std::string {
    for (const auto& [n, v] : names) {
      if (n == word) {
        word = std::to_string(static_cast<int>(v));
        return "";
      }
    }
    return "unknown value '" + word + "' (want " + core::enum_choices(names) + ")";
  };
  return sub
      .add_option(name, value,
                  help + " (" + core::enum_choices(names) + "; default " + core::enum_name(names, value) + ")")
      ->transform(CLI::Validator(to_number, ""))
      ->option_text("WORD");
}

inline CLI::Option* add_fanouts_option(CLI::App& sub, const std::string& name, std::vector<std::int32_t>& fanouts,
                                       const std::string& help) {
  const std::string shown = fmt::format("{}", fmt::join(fanouts, ","));
  auto* option = sub.add_option_function<std::string>(
      name,
      [name, &fanouts](const std::string& text) {
        try {
          fanouts = sample::parse_fanouts(text, name);
        } catch (const Error& e) {
          throw CLI::ValidationError(name, e.message());
        }
      },
      help + (shown.empty() ? "" : " (default " + shown + ")"));
  return option->option_text("LIST");
}

}  // namespace loom::cli
