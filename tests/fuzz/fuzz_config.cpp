// TOML configuration files (`--config`).
#include "fuzz_input.hpp"
#include "loom/core/config_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = loom::fuzz::write_input("recipe.toml", {reinterpret_cast<const char*>(data), size});
  loom::fuzz::expect_parse_or_error([&] { loom::core::read_config_file(path); });
  return 0;
}
