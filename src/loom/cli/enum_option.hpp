// add_enum_option: an option whose words (a core::EnumNames table) are parsed into the enum once,
// by CLI11, so that a wrong word is a usage error listing the choices and the library only ever
// sees typed values. The help text gets the choices and the default appended.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "loom/core/enum_names.hpp"

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

}  // namespace loom::cli
