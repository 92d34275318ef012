#include "loom/comm/link_model.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <chrono>
#include <cmath>
#include <string_view>
#include <thread>
#include <utility>

#include "loom/core/error.hpp"

namespace loom::comm {

double LinkModel::seconds(const Traffic& t) const {
  auto direction = [&](std::uint64_t messages, std::uint64_t bytes) {
    double s = static_cast<double>(messages) * latency;
    if (bandwidth > 0) s += static_cast<double>(bytes) / bandwidth;
    return s;
  };
  return std::max(direction(t.messages_out, t.bytes_out), direction(t.messages_in, t.bytes_in)) + host_seconds(t);
}

double LinkModel::host_seconds(const Traffic& t) const {
  double host = static_cast<double>(t.messages_out + t.messages_in) * host_latency;
  if (host_bandwidth > 0) host += static_cast<double>(t.bytes_out + t.bytes_in) / host_bandwidth;
  return host;
}

namespace {

class SystemClock final : public Clock {
 public:
  double now() override {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  }
  void sleep_until(double seconds) override {
    const double wait = seconds - now();
    if (wait > 0) std::this_thread::sleep_for(std::chrono::duration<double>(wait));
  }
  void busy_until(double seconds) override {
    while (now() < seconds) {}
  }
};

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// Splits "12.5Gbit" into 12.5 and "Gbit" (unit trimmed); throws when no number leads.
std::pair<double, std::string_view> split_number(std::string_view text, const std::string& name,
                                                 const std::string& what) {
  text = trim(text);
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || !std::isfinite(value)) {
    throw Error::in_argument(name, "expected " + what + ", got '" + std::string(text) + "'");
  }
  return {value, trim(std::string_view(end, static_cast<std::size_t>(text.data() + text.size() - end)))};
}

}  // namespace

std::shared_ptr<Clock> system_clock() {
  static const std::shared_ptr<Clock> clock = std::make_shared<SystemClock>();
  return clock;
}

double emulate(const LinkModel& model, Clock& clock, double start, const Traffic& traffic) {
  if (!model.enabled()) return 0;
  const double deadline = start + model.seconds(traffic);
  const double now = clock.now();
  if (now >= deadline) return 0;
  const double host = model.host_seconds(traffic);
  if (host > 0) clock.busy_until(std::min(deadline, now + host));
  clock.sleep_until(deadline);
  return deadline - now;
}

double parse_bandwidth(const std::string& text, const std::string& name) {
  const std::string what = "a bandwidth such as 10Gbit, 1.25GB/s or 100MiB/s";
  auto [value, unit_view] = split_number(text, name, what);
  std::string unit = lower(unit_view);
  if (unit.size() >= 2 && unit.compare(unit.size() - 2, 2, "/s") == 0) unit.resize(unit.size() - 2);
  struct Unit {
    const char* name;
    double bytes_per_second;
  };
  static constexpr Unit kUnits[] = {
      {"", 1},        {"b", 1},        {"kb", 1e3},        {"mb", 1e6},           {"gb", 1e9},
      {"tb", 1e12},   {"kib", 1024.0}, {"mib", 1048576.0}, {"gib", 1073741824.0}, {"tib", 1099511627776.0},
      {"bit", 0.125}, {"kbit", 125.0}, {"mbit", 125e3},    {"gbit", 125e6},       {"tbit", 125e9},
      {"bps", 0.125}, {"kbps", 125.0}, {"mbps", 125e3},    {"gbps", 125e6},       {"tbps", 125e9}};
  for (const Unit& u : kUnits) {
    if (unit == u.name) {
      const double bytes = value * u.bytes_per_second;
      if (!(bytes > 0) || !std::isfinite(bytes)) {
        throw Error::in_argument(name, "bandwidth must be positive, got '" + text + "'");
      }
      return bytes;
    }
  }
  throw Error::in_argument(
      name, "unknown bandwidth unit '" + std::string(unit_view) + "' in '" + text + "' (expected " + what + ")");
}

double parse_duration(const std::string& text, const std::string& name) {
  const std::string what = "a duration such as 20us, 1ms or 0.5s";
  auto [value, unit_view] = split_number(text, name, what);
  const std::string unit = lower(unit_view);
  struct Unit {
    const char* name;
    double seconds;
  };
  static constexpr Unit kUnits[] = {{"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"\xC2\xB5s", 1e-6}, {"ns", 1e-9}};
  double scale = 0;
  for (const Unit& u : kUnits)
    if (unit == u.name || unit_view == u.name) scale = u.seconds;
  if (scale == 0 && unit.empty() && value == 0) scale = 1;
  if (scale == 0 && unit.empty())
    throw Error::in_argument(name, "missing unit in '" + text + "' (expected " + what + ")");
  if (scale == 0)
    throw Error::in_argument(name, "unknown duration unit '" + std::string(unit_view) + "' in '" + text + "'");
  if (value < 0) throw Error::in_argument(name, "duration must not be negative, got '" + text + "'");
  return value * scale;
}

LinkModel parse_link_model(const std::string& bandwidth, const std::string& latency, const std::string& host_bandwidth,
                           const std::string& host_latency) {
  LinkModel model;
  if (!bandwidth.empty()) model.bandwidth = parse_bandwidth(bandwidth, "--net-bandwidth");
  if (!latency.empty()) model.latency = parse_duration(latency, "--net-latency");
  if (!host_bandwidth.empty()) model.host_bandwidth = parse_bandwidth(host_bandwidth, "--net-host-bandwidth");
  if (!host_latency.empty()) model.host_latency = parse_duration(host_latency, "--net-host-latency");
  return model;
}

}  // namespace loom::comm
