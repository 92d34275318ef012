// The words for the values of an enum that options, config files and records spell out: one table
// per enum, declared next to it, so that the CLI (which parses the words into the enum once, at
// the boundary), the library's messages and the JSON records agree.
//   inline constexpr core::EnumNames<Mode, 2> kModeNames{{{"fast", Mode::kFast}, {"exact", Mode::kExact}}};
//   enum_name(kModeNames, Mode::kFast) == "fast"; parse_enum(kModeNames, "exact", "--mode") == Mode::kExact
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

#include "loom/core/error.hpp"

namespace loom::core {

template <class E, std::size_t N>
using EnumNames = std::array<std::pair<std::string_view, E>, N>;

template <class E, std::size_t N>
std::string enum_name(const EnumNames<E, N>& names, E value) {
  for (const auto& [name, v] : names)
    if (v == value) return std::string(name);
  return "unknown";
}

// "a | b | c", for help texts and messages.
template <class E, std::size_t N>
std::string enum_choices(const EnumNames<E, N>& names) {
  std::string out;
  for (const auto& [name, v] : names) out += (out.empty() ? "" : " | ") + std::string(name);
  return out;
}

// Throws Error naming `argument` and the choices when `name` is not in the table.
template <class E, std::size_t N>
E parse_enum(const EnumNames<E, N>& names, std::string_view name, const std::string& argument) {
  for (const auto& [n, v] : names)
    if (n == name) return v;
  throw Error::in_argument(argument, fmt::format("unknown value '{}' (want {})", name, enum_choices(names)));
}

}  // namespace loom::core
