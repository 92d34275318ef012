#include "loom/plan/cluster_profile.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>

#include <fmt/format.h>

#include "loom/core/config_file.hpp"
#include "loom/core/error.hpp"
#include "loom/core/fs.hpp"
#include "loom/core/memory.hpp"

namespace loom::plan {

namespace {

using core::ConfigEntry;
using core::ConfigValueKind;

// One key of the file: its section, name, and how its text lands in the profile.
struct Key {
  std::string section, name;
  ConfigValueKind kind;
  std::function<void(ClusterProfile&, const std::string& text, const std::string& where)> set;
  bool required = true;
};

double positive_number(const std::string& text, const std::string& where) {
  double value = 0;
  try {
    std::size_t used = 0;
    value = std::stod(text, &used);
    if (used != text.size()) value = std::nan("");
  } catch (const std::exception&) {
    value = std::nan("");
  }
  if (!(std::isfinite(value) && value > 0))
    throw Error(fmt::format("{}: must be a positive number, got {}", where, text));
  return value;
}

double duration(const std::string& text, const std::string& where) { return comm::parse_duration(text, where); }
double bandwidth(const std::string& text, const std::string& where) { return comm::parse_bandwidth(text, where); }

std::vector<Key> profile_keys() {
  using P = ClusterProfile;
  using S = const std::string&;
  const auto number = ConfigValueKind::kFloat;
  const auto text = ConfigValueKind::kString;
  return {
      {"", "name", text, [](P& p, S t, S) { p.name = t; }},
      {"", "sources", text, [](P& p, S t, S) { p.sources = t; }, false},
      {"host", "cores", number, [](P& p, S t, S w) { p.cores = positive_number(t, w); }},
      {"host", "memory", text, [](P& p, S t, S w) { p.memory_bytes = core::parse_memory_size(t, w); }},
      {"host", "sampled_edges_per_core_second", number,
       [](P& p, S t, S w) { p.sampled_edges_per_core_second = positive_number(t, w); }},
      {"host", "gathered_bytes_per_core_second", number,
       [](P& p, S t, S w) { p.gathered_bytes_per_core_second = positive_number(t, w); }},
      {"compute", "flops", number, [](P& p, S t, S w) { p.cpu.flops = positive_number(t, w); }},
      {"compute", "values", number, [](P& p, S t, S w) { p.cpu.values = positive_number(t, w); }},
      {"compute", "step_overhead", text, [](P& p, S t, S w) { p.cpu.step_overhead = duration(t, w); }},
      {"network", "bandwidth", text, [](P& p, S t, S w) { p.network.bandwidth = bandwidth(t, w); }},
      {"network", "latency", text, [](P& p, S t, S w) { p.network.latency = duration(t, w); }},
      {"network", "host_bandwidth", text, [](P& p, S t, S w) { p.network.host_bandwidth = bandwidth(t, w); }},
      {"network", "host_latency", text, [](P& p, S t, S w) { p.network.host_latency = duration(t, w); }},
      {"gpu", "name", text, [](P& p, S t, S) { p.gpu.name = t; }},
      {"gpu", "per_host", ConfigValueKind::kInteger,
       [](P& p, S t, S w) { p.gpu.per_host = static_cast<int>(positive_number(t, w)); }},
      {"gpu", "memory", text, [](P& p, S t, S w) { p.gpu.memory_bytes = core::parse_memory_size(t, w); }},
      {"gpu", "copy_bandwidth", text, [](P& p, S t, S w) { p.gpu.copy_bandwidth = bandwidth(t, w); }},
      {"gpu", "flops", number, [](P& p, S t, S w) { p.gpu.compute.flops = positive_number(t, w); }},
      {"gpu", "values", number, [](P& p, S t, S w) { p.gpu.compute.values = positive_number(t, w); }},
      {"gpu", "step_overhead", text, [](P& p, S t, S w) { p.gpu.compute.step_overhead = duration(t, w); }},
  };
}

std::string key_name(const std::string& section, const std::string& name) {
  return section.empty() ? name : section + "." + name;
}

// An integer may stand where a number is asked for.
bool kind_fits(ConfigValueKind wanted, ConfigValueKind given) {
  return wanted == given || (wanted == ConfigValueKind::kFloat && given == ConfigValueKind::kInteger);
}

}  // namespace

ClusterProfile read_profile(const std::string& path) {
  const std::vector<ConfigEntry> entries = core::read_config_file(path);
  const std::vector<Key> keys = profile_keys();
  ClusterProfile profile;
  std::set<std::string> seen, sections;
  for (const ConfigEntry& e : entries) {
    std::string bare = e.key;  // '-' and '_' alike, as in --config files
    std::replace(bare.begin(), bare.end(), '-', '_');
    const std::string name = key_name(e.section, bare);
    const auto key =
        std::find_if(keys.begin(), keys.end(), [&](const Key& k) { return k.section == e.section && k.name == bare; });
    if (key == keys.end())
      throw Error::in_file(path, e.line, fmt::format("unknown key '{}' in a cluster profile", name));
    if (!kind_fits(key->kind, e.kind))
      throw Error::in_file(path, e.line,
                           fmt::format("'{}' must be a {}, got a {}", name, core::config_kind_name(key->kind),
                                       core::config_kind_name(e.kind)));
    const std::string where = fmt::format("{}:{}: {}", path, e.line, name);
    key->set(profile, e.text, where);
    seen.insert(name);
    if (!e.section.empty()) sections.insert(e.section);
  }
  for (const Key& k : keys) {
    const bool section_asked = k.section != "gpu" || sections.count("gpu") > 0;  // input text: [gpu] is optional
    if (k.required && section_asked && seen.count(key_name(k.section, k.name)) == 0)
      throw Error::in_file(path, 0, fmt::format("a cluster profile needs '{}'", key_name(k.section, k.name)));
  }
  return profile;
}

void write_profile(const ClusterProfile& p, const std::string& path) {
  const auto quoted = [](const std::string& s) {
    std::string out = "\"";
    for (const char c : s) {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    return out + "\"";
  };
  const auto seconds = [](double s) { return fmt::format("\"{}s\"", s); };
  const auto rate = [](double b) { return fmt::format("\"{}\"", b); };
  std::string text = fmt::format("name = {}\n", quoted(p.name));
  if (!p.sources.empty()) text += fmt::format("sources = {}\n", quoted(p.sources));
  text += fmt::format(
      "\n[host]\ncores = {}\nmemory = \"{}\"\nsampled_edges_per_core_second = {}\n"
      "gathered_bytes_per_core_second = {}\n",
      p.cores, p.memory_bytes, p.sampled_edges_per_core_second, p.gathered_bytes_per_core_second);
  text += fmt::format("\n[compute]\nflops = {}\nvalues = {}\nstep_overhead = {}\n", p.cpu.flops, p.cpu.values,
                      seconds(p.cpu.step_overhead));
  text += fmt::format("\n[network]\nbandwidth = {}\nlatency = {}\nhost_bandwidth = {}\nhost_latency = {}\n",
                      rate(p.network.bandwidth), seconds(p.network.latency), rate(p.network.host_bandwidth),
                      seconds(p.network.host_latency));
  if (p.gpu.present())
    text += fmt::format(
        "\n[gpu]\nname = {}\nper_host = {}\nmemory = \"{}\"\ncopy_bandwidth = {}\nflops = {}\nvalues = {}\n"
        "step_overhead = {}\n",
        quoted(p.gpu.name), p.gpu.per_host, p.gpu.memory_bytes, rate(p.gpu.copy_bandwidth), p.gpu.compute.flops,
        p.gpu.compute.values, seconds(p.gpu.compute.step_overhead));
  core::write_text_file(path, text);
}

}  // namespace loom::plan
