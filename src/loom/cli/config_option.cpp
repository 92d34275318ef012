#include "loom/cli/config_option.hpp"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "loom/core/config_file.hpp"
#include "loom/core/error.hpp"

namespace loom::cli {

namespace {

using core::ConfigEntry;
using core::ConfigValueKind;

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

// The long names of `sub`'s options, without "--" (what a config file may set).
std::vector<std::string> config_keys(const CLI::App& sub) {
  std::vector<std::string> keys;
  for (const CLI::Option* opt : sub.get_options()) {
    for (const std::string& name : opt->get_lnames())
      if (name != "help" && name != "config") keys.push_back(name);
  }
  return keys;
}

std::string did_you_mean(const std::string& key, const std::vector<std::string>& keys) {
  std::string best;
  std::size_t best_distance = 3;  // suggest only close names
  for (const std::string& k : keys) {
    const std::size_t d = edit_distance(key, k);
    if (d < best_distance) best_distance = d, best = k;
  }
  return best.empty() ? "" : fmt::format(" (did you mean '{}'?)", best);
}

// "embed deepwalk" for `loom embed deepwalk`: the names from below the root down to `sub`.
std::string command_path(const CLI::App& sub) {
  std::string path = sub.get_name();
  for (const CLI::App* up = sub.get_parent(); up != nullptr && up->get_parent() != nullptr; up = up->get_parent())
    path = up->get_name() + " " + path;
  return path;
}

[[noreturn]] void fail(const std::string& path, const ConfigEntry& entry, const std::string& message) {
  throw CLI::ConfigError(Error::in_file(path, entry.line, fmt::format("'{}': {}", entry.key, message)).what());
}

// The TOML kinds an option accepts, from the type CLI11 records for it.
bool kind_fits(const CLI::Option& opt, ConfigValueKind kind) {
  if (opt.get_expected_max() == 0) return kind == ConfigValueKind::kBool;  // a flag
  std::string type = opt.get_type_name();
  type = type.substr(0, type.find(':'));
  if (kind == ConfigValueKind::kArray && opt.get_items_expected_max() > 1) return true;  // a list option
  if (type == "INT" || type == "UINT") return kind == ConfigValueKind::kInteger;
  if (type == "FLOAT") return kind == ConfigValueKind::kInteger || kind == ConfigValueKind::kFloat;
  if (type == "BOOLEAN") return kind == ConfigValueKind::kBool;
  return kind == ConfigValueKind::kString || kind == ConfigValueKind::kArray;
}

std::string wanted_kind(const CLI::Option& opt) {
  if (opt.get_expected_max() == 0) return "true or false";
  std::string type = opt.get_type_name();
  type = type.substr(0, type.find(':'));
  if (type == "INT" || type == "UINT") return "an integer";
  if (type == "FLOAT") return "a number";
  if (type == "BOOLEAN") return "true or false";
  return "a quoted string";
}

void apply_entry(CLI::App& sub, const std::string& path, const ConfigEntry& entry) {
  std::string key = entry.key;
  std::replace(key.begin(), key.end(), '_', '-');
  CLI::Option* opt = key == "help" || key == "config" ? nullptr : sub.get_option_no_throw("--" + key);
  if (opt == nullptr)
    fail(path, entry,
         fmt::format("not an option of `loom {}`{}", command_path(sub), did_you_mean(key, config_keys(sub))));
  if (!kind_fits(*opt, entry.kind))
    fail(path, entry,
         fmt::format("wants {}, got {} {}", wanted_kind(*opt), core::config_kind_name(entry.kind),
                     entry.kind == ConfigValueKind::kString ? "\"" + entry.text + "\"" : entry.text));
  if (opt->count() > 0) return;  // the command line wins
  try {
    opt->add_result(opt->get_expected_max() == 0 ? opt->get_flag_value(key, entry.text) : entry.text);
    opt->run_callback();
  } catch (const CLI::ParseError& e) {
    fail(path, entry, e.what());
  }
}

void apply_config(CLI::App& sub, const std::string& path, const std::string& shared_with) {
  std::vector<ConfigEntry> entries;
  try {
    entries = core::read_config_file(path);
  } catch (const Error& e) {
    throw CLI::ConfigError(fmt::format("--config: {}", e.what()));
  }
  for (const ConfigEntry& entry : entries) {
    if (!entry.section.empty() && entry.section != sub.get_name() && entry.section != shared_with)
      throw CLI::ConfigError(Error::in_file(path, entry.line,
                                            fmt::format("section [{}] does not belong to `loom {}` (use top-level "
                                                        "keys or [{}])",
                                                        entry.section, command_path(sub), sub.get_name()))
                                 .what());
    apply_entry(sub, path, entry);
  }
}

}  // namespace

void add_config_option(CLI::App& sub, const std::string& shared_with) {
  auto path = std::make_shared<std::string>();
  sub.add_option("--config", *path,
                 "TOML file of options (keys are the long option names; command-line flags override it)");
  sub.parse_complete_callback([&sub, path, shared_with] {
    if (!path->empty()) apply_config(sub, *path, shared_with);
  });
}

}  // namespace loom::cli
