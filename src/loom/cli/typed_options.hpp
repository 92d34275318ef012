// Options parsed into typed values once, at the CLI boundary, so that the library only ever sees
// typed values and a wrong value is a usage error (exit status 2) naming the option:
//   add_enum_option:    the words of a core::EnumNames table into the enum (help lists the words
//                       and the default);
//   add_enum_list_option: comma-separated words of such a table into a vector of the enum;
//   add_parsed_option:  text through a library parser (which throws loom::Error) into a value;
//   add_fanouts_option: "15,10,5" (-1 = every neighbour) into a vector of fanouts or sample::Fanouts;
//   add_build_memory_option: --build-memory SIZE, at least 16M;
//   add_link_options:   --net-bandwidth 10Gbit --net-latency 20us --net-host-bandwidth 1GB/s --net-host-latency 50us
//                       into a comm::LinkModel.
#pragma once

#include <string>
#include <vector>

#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include "loom/comm/link_model.hpp"
#include "loom/core/enum_names.hpp"
#include "loom/core/error.hpp"
#include "loom/core/memory.hpp"
#include "loom/sample/fanouts.hpp"

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

template <class E, std::size_t N>
CLI::Option* add_enum_list_option(CLI::App& sub, const std::string& name, std::vector<E>& values,
                                  const core::EnumNames<E, N>& names, const std::string& help) {
  std::string shown;
  for (const E v : values) shown += (shown.empty() ? "" : ",") + core::enum_name(names, v);
  return sub
      .add_option_function<std::vector<std::string>>(
          name,
          [name, &values, names](const std::vector<std::string>& words) {
            values.clear();
            for (const std::string& word : words) {
              try {
                values.push_back(core::parse_enum(names, word, name));
              } catch (const Error& e) {
                throw CLI::ValidationError(name, e.message());
              }
            }
          },
          help + " (" + core::enum_choices(names) + "; default " + shown + ")")
      ->delimiter(',')
      ->option_text("LIST");
}
template <class T, class Parse>
CLI::Option* add_parsed_option(CLI::App& sub, const std::string& name, T& value, Parse parse, const std::string& help) {
  return sub.add_option_function<std::string>(
      name,
      [name, &value, parse](const std::string& text) {
        try {
          value = parse(text);
        } catch (const Error& e) {
          throw CLI::ValidationError(name, e.message());
        }
      },
      help);
}

inline CLI::Option* add_fanouts_option(CLI::App& sub, const std::string& name, std::vector<std::int32_t>& fanouts,
                                       const std::string& help) {
  const std::string shown = fmt::format("{}", fmt::join(fanouts, ","));
  return add_parsed_option(
             sub, name, fanouts, [name](const std::string& text) { return sample::parse_fanouts(text, name); },
             help + (shown.empty() ? "" : " (default " + shown + ")"))
      ->option_text("LIST");
}
// The same into a checked sampling spec (sample::Fanouts), for options whose layer count is the
// fanouts' own (the analyses, plan calibrate).
inline CLI::Option* add_fanouts_option(CLI::App& sub, const std::string& name, sample::Fanouts& fanouts,
                                       const std::string& help) {
  return add_parsed_option(
             sub, name, fanouts,
             [name](const std::string& text) { return sample::Fanouts(sample::parse_fanouts(text, name), name); },
             fmt::format("{} (default {})", help, fmt::join(fanouts, ",")))
      ->option_text("LIST");
}

// --build-memory SIZE (memory_size_option's text), at least kMinBuildMemory: below it the edges
// take thousands of passes (--build-memory 1 made 19,717 of them) for no memory gained.
inline constexpr std::int64_t kMinBuildMemory = std::int64_t{16} << 20;
inline CLI::Option* add_build_memory_option(CLI::App& sub, std::int64_t& bytes, const std::string& help) {
  return add_parsed_option(
             sub, "--build-memory", bytes,
             [](const std::string& text) {
               const std::int64_t value = core::parse_memory_size(text, "--build-memory");
               LOOM_CHECK_ARG(value >= kMinBuildMemory, "--build-memory",
                              "'{}' is below 16M, which makes thousands of passes over the edges; give at least 16M",
                              text);
               return value;
             },
             help)
      ->option_text("SIZE");
}

inline void add_link_options(CLI::App& sub, comm::LinkModel& link) {
  add_parsed_option(
      sub, "--net-bandwidth", link.bandwidth, [](const std::string& t) { return comm::parse_bandwidth(t); },
      "Link emulation bandwidth, e.g. 10Gbit (off by default)")
      ->option_text("RATE");
  add_parsed_option(
      sub, "--net-latency", link.latency, [](const std::string& t) { return comm::parse_duration(t); },
      "Link emulation latency per message, e.g. 20us")
      ->option_text("TIME");
  add_parsed_option(
      sub, "--net-host-bandwidth", link.host_bandwidth,
      [](const std::string& t) { return comm::parse_bandwidth(t, "--net-host-bandwidth"); },
      "Link emulation, host cost: the rate this host's network stack moves a rank's bytes, sent "
      "plus received, e.g. 1GB/s (bench/bench_netcluster.sh measures it)")
      ->option_text("RATE");
  add_parsed_option(
      sub, "--net-host-latency", link.host_latency,
      [](const std::string& t) { return comm::parse_duration(t, "--net-host-latency"); },
      "Link emulation, host cost: time per message sent or received, e.g. 50us")
      ->option_text("TIME");
}

}  // namespace loom::cli
