#include "loom/plan/counts_cache.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <system_error>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "loom/format/digest.hpp"
#include "loom/core/error.hpp"
#include "loom/core/fs.hpp"
#include "loom/core/log.hpp"

namespace loom::plan {

namespace {

using nlohmann::json;

std::string entry_path(const std::string& dir, const std::string& key) {
  return fmt::format("{}/counts-{:08x}.cbor", dir, format::crc32_of(key.data(), static_cast<std::int64_t>(key.size())));
}

// A step as [input_rows, remote_rows, [[dst, src, edges] per layer], fetched[holding][part]].
json step_to_json(const StepCount& s) {
  json layers = json::array();
  for (const LayerCount& l : s.layers) layers.push_back({l.dst, l.src, l.edges});
  return json::array({s.input_rows, s.remote_rows, layers, s.fetched});
}

StepCount step_from_json(const json& j) {
  StepCount s;
  s.input_rows = j.at(0).get<std::int64_t>();
  s.remote_rows = j.at(1).get<std::int64_t>();
  for (const json& l : j.at(2))
    s.layers.push_back({l.at(0).get<std::int64_t>(), l.at(1).get<std::int64_t>(), l.at(2).get<std::int64_t>()});
  s.fetched = j.at(3).get<std::vector<std::vector<std::int64_t>>>();
  return s;
}

json to_json(const std::string& key, const CountedSplit& c) {
  json parts = json::array();
  for (const auto& steps : c.counts.parts) {
    json part = json::array();
    for (const StepCount& s : steps) part.push_back(step_to_json(s));
    parts.push_back(std::move(part));
  }
  return {{"key", key},
          {"offsets", c.split.book.to_json()},
          {"halo_sizes", c.split.halo_sizes},
          {"scale", c.split.scale},
          {"origin", c.split.origin},
          {"steps", c.counts.steps},
          {"parts", parts}};
}

CountedSplit from_json(const json& j, const std::string& where) {
  CountedSplit c;
  c.split.book = partition::PartitionBook::from_json(j.at("offsets"), where);
  c.split.halo_sizes = j.at("halo_sizes").get<std::vector<std::int64_t>>();
  c.split.scale = j.at("scale").get<double>();
  if (!std::isfinite(c.split.scale) || c.split.scale <= 0) throw Error::in_file(where, 0, "its scale is not positive");
  c.split.origin = j.at("origin").get<std::string>();
  c.counts.steps = j.at("steps").get<std::int64_t>();
  for (const json& part : j.at("parts")) {
    std::vector<StepCount>& steps = c.counts.parts.emplace_back();
    for (const json& s : part) steps.push_back(step_from_json(s));
  }
  const auto parts = static_cast<std::size_t>(c.split.parts());
  if (c.split.halo_sizes.size() != parts || c.counts.parts.size() != parts)
    throw Error::in_file(where, 0, "its parts disagree in number");
  for (const auto& steps : c.counts.parts)
    if (static_cast<std::int64_t>(steps.size()) != c.counts.steps)
      throw Error::in_file(where, 0, "a part's steps disagree with the epoch's");
  return c;
}

}  // namespace

std::string default_counts_dir(const std::string& store) {
  if (!store.empty() && ::access(store.c_str(), W_OK) == 0) return store + "/plan-counts";
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg != '\0')
    return std::string(xdg) + "/loom/plan-counts";
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0')
    return std::string(home) + "/.cache/loom/plan-counts";
  return "";
}

std::optional<CountedSplit> read_counts(const std::string& dir, const std::string& key) {
  const std::string path = entry_path(dir, key);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return std::nullopt;
  try {
    const std::string bytes = core::read_text_file(path);
    const json j = json::from_cbor(bytes);
    if (j.at("key").get<std::string>() != key) {
      spdlog::info("plan: {} was kept for another plan; counting afresh", path);
      return std::nullopt;
    }
    CountedSplit counted = from_json(j, path);
    spdlog::info("plan: counts read from {}", path);
    return counted;
  } catch (const std::exception& e) {
    spdlog::warn("plan: {} cannot be read ({}); counting afresh", path, e.what());
    return std::nullopt;
  }
}

void keep_counts(const std::string& dir, const std::string& key, const CountedSplit& counted) {
  const std::string path = entry_path(dir, key);
  try {
    std::filesystem::create_directories(dir);
    const std::vector<std::uint8_t> bytes = json::to_cbor(to_json(key, counted));
    core::write_text_file(path, std::string(bytes.begin(), bytes.end()));
    spdlog::info("plan: counts kept in {} for the next plan", path);
  } catch (const std::exception& e) {
    spdlog::warn("plan: counts not kept in {} ({}); the next plan counts again", dir, e.what());
  }
}

}  // namespace loom::plan
