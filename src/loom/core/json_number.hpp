// json_int<T>(value, where): an integer of a JSON document read from outside (meta.json and the
// like) as T, or an Error naming `where` when the value is not an integer or does not fit T;
// json_int_map<T> the same for an object of integers.
// nlohmann's get<T>() converts a float such as 4.4e24 by a plain cast, which is undefined
// behaviour when it is out of range.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "loom/core/error.hpp"

namespace loom::core {

template <class T>
T json_int(const nlohmann::json& value, const std::string& where) {
  const auto bad = [&] {
    return Error::in_file(where, 0,
                          "expected an integer that fits " + std::to_string(sizeof(T) * 8) + " bits, found " +
                              value.dump().substr(0, 40));
  };
  if (value.is_number_unsigned()) {
    const auto v = value.get<std::uint64_t>();
    if (v > static_cast<std::uint64_t>(std::numeric_limits<T>::max())) throw bad();
    return static_cast<T>(v);
  }
  if (!value.is_number_integer()) throw bad();
  const auto v = value.get<std::int64_t>();
  if (v < 0 && !std::numeric_limits<T>::is_signed) throw bad();
  if constexpr (std::numeric_limits<T>::is_signed)
    if (v < static_cast<std::int64_t>(std::numeric_limits<T>::min()) ||
        v > static_cast<std::int64_t>(std::numeric_limits<T>::max()))
      throw bad();
  return static_cast<T>(v);
}

// {"name": integer, ...} as a map, each value checked as json_int does.
template <class T>
std::map<std::string, T> json_int_map(const nlohmann::json& value, const std::string& where) {
  if (!value.is_object())
    throw Error::in_file(where, 0, "expected an object of integers, found " + value.dump().substr(0, 40));
  std::map<std::string, T> out;
  for (const auto& [key, v] : value.items()) out[key] = json_int<T>(v, where);
  return out;
}

}  // namespace loom::core
