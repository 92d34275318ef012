// Logging: a thin layer over spdlog. init_logging() sets the level and, in multi-rank runs,
// prefixes every line with the rank so interleaved output stays readable. Use the spdlog
// functions (spdlog::info, spdlog::warn, ...) everywhere after that.
#pragma once

#include <string>

#include <spdlog/spdlog.h>

namespace loom::core {

// level: trace|debug|info|warn|error|off. rank < 0 means a single-process tool (no prefix).
void init_logging(const std::string& level, int rank = -1);

// In a multi-rank job: prefix lines with the rank; ranks other than 0 log warnings and errors only.
void set_log_rank(int rank, int world_size);

}  // namespace loom::core
