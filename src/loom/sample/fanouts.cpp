#include "loom/sample/fanouts.hpp"

#include <algorithm>
#include <exception>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "loom/core/error.hpp"

namespace loom::sample {

Fanouts::Fanouts(std::vector<std::int32_t> values, const std::string& argument, int layers, Layers match)
    : values_(std::move(values)) {
  LOOM_CHECK_ARG(!values_.empty(), argument, "need at least one layer");
  for (const std::int32_t f : values_) {
    LOOM_CHECK_ARG(f > 0 || f == -1, argument, "fanout {} is invalid (want > 0, or -1 for all neighbours)", f);
    LOOM_CHECK_ARG(f <= 1 << 30, argument, "fanout {} is too large", f);
  }
  if (layers <= 0) return;
  if (match == Layers::kOneForAll && values_.size() == 1) values_.assign(static_cast<std::size_t>(layers), values_[0]);
  LOOM_CHECK_ARG(static_cast<int>(values_.size()) == layers, argument,
                 "{} fanouts ({}) for a {}-layer model (--layers): give one fanout per layer", values_.size(),
                 fmt::join(values_, ","), layers);
}

Fanouts Fanouts::all_neighbours(int layers) {
  LOOM_CHECK_ARG(layers > 0, "layers", "need at least one layer, got {}", layers);
  return Fanouts(std::vector<std::int32_t>(static_cast<std::size_t>(layers), -1));
}

std::vector<std::int32_t> parse_fanouts(const std::string& text, const std::string& argument) {
  std::vector<std::int32_t> fanouts;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string field = text.substr(start, comma - start);
    std::size_t used = 0;
    long value = 0;
    try {
      value = std::stol(field, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    LOOM_CHECK_ARG(used > 0 && used == field.size(), argument, "'{}' is not a comma-separated list of integers", text);
    LOOM_CHECK_ARG(value >= -1 && value <= 1 << 30, argument, "fanout {} is out of range", value);
    fanouts.push_back(static_cast<std::int32_t>(value));
    start = comma + 1;
  }
  return Fanouts(std::move(fanouts), argument).values();
}

}  // namespace loom::sample
