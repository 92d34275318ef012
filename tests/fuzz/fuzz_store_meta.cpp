// meta.json of graph stores and of partitioned stores, opened as the CLI opens them.
#include "fuzz_input.hpp"
#include "loom/graph/store.hpp"
#include "loom/partition/partitioned_store.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const loom::fuzz::ModeAndBytes input = loom::fuzz::split_mode(data, size, 2);
  const std::string dir = loom::fuzz::scratch_dir() + "/store";
  std::filesystem::remove_all(dir);
  loom::fuzz::write_input("store/meta.json", input.bytes);
  loom::fuzz::expect_parse_or_error([&] {
    if (input.mode == 0)
      loom::graph::GraphStore::open(dir);
    else
      loom::partition::PartitionedStore::open(dir);
  });
  return 0;
}
