// meta.json of graph stores and of partitioned stores, opened as the CLI opens them, and the
// digests it records verified as every command that reads a store verifies them (a file of the
// store beside it, whose digest the input may or may not match; names outside the store refused).
#include "fuzz_input.hpp"
#include "loom/graph/store.hpp"
#include "loom/partition/partitioned_store.hpp"
#include "loom/partition/store_verification.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const loom::fuzz::ModeAndBytes input = loom::fuzz::split_mode(data, size, 3);
  const std::string dir = loom::fuzz::scratch_dir() + "/store";
  std::filesystem::remove_all(dir);
  loom::fuzz::write_input("store/meta.json", input.bytes);
  loom::fuzz::write_input("store/label.npy", "not the bytes the digest was taken of");
  loom::fuzz::expect_parse_or_error([&] {
    if (input.mode == 0)
      loom::graph::GraphStore::open(dir);
    else if (input.mode == 1)
      loom::partition::PartitionedStore::open(dir);
    else
      loom::partition::verify_store({dir});
  });
  return 0;
}
