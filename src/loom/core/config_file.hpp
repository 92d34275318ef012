// Reads the TOML files that `--config` takes: `key = value` lines, optionally under `[section]`
// headers, with `#` comments. Values are TOML strings ("basic" with escapes, or 'literal'),
// integers, floats, booleans, or one-line arrays of those. Every entry keeps its line, so a
// caller that finds a key it does not know, or a value of the wrong type, can name the file
// and the line. Anything outside this subset (multi-line strings, inline tables, dotted keys,
// dates, a repeated key) is an Error naming the file and line; nothing is silently skipped.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace loom::core {

enum class ConfigValueKind { kString, kInteger, kFloat, kBool, kArray };

struct ConfigEntry {
  std::string section;  // "" for keys before any [section] header
  std::string key;
  ConfigValueKind kind = ConfigValueKind::kString;
  // The value as command-line text: a string's contents, a number as written (without '_'),
  // "true"/"false", or an array's elements joined by ','.
  std::string text;
  std::int64_t line = 0;
};

// Throws loom::Error "FILE:LINE: ..." for an unreadable file or a line outside the subset.
std::vector<ConfigEntry> read_config_file(const std::string& path);

// "string", "integer", ... for messages.
const char* config_kind_name(ConfigValueKind kind);

}  // namespace loom::core
