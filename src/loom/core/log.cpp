#include "loom/core/log.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>

#include "loom/core/error.hpp"

namespace loom::core {

void init_logging(const std::string& level, int rank) {
  auto lvl = spdlog::level::from_str(level);
  // input text: the level's name, which spdlog parses (an unknown name comes back as off)
  if (lvl == spdlog::level::off && level != "off")
    throw Error::in_argument("--log-level", "unknown level '" + level + "'");
  spdlog::drop("loom");
  auto logger = spdlog::stderr_color_mt("loom");
  spdlog::set_default_logger(logger);
  spdlog::set_level(lvl);
  if (rank >= 0)
    spdlog::set_pattern(fmt::format("[%H:%M:%S.%e] [rank {}] [%^%l%$] %v", rank));
  else
    spdlog::set_pattern("[%H:%M:%S.%e] [%^%l%$] %v");
}

void set_log_rank(int rank, int world_size) {
  if (world_size <= 1) return;
  spdlog::set_pattern(fmt::format("[%H:%M:%S.%e] [rank {}] [%^%l%$] %v", rank));
  if (rank > 0 && spdlog::get_level() < spdlog::level::warn) spdlog::set_level(spdlog::level::warn);
}

}  // namespace loom::core
