// torch.save'd split dictionaries (split_dict.pt of OGB and MAG240M): zip or legacy format, the
// pickle machine, tensors and numpy arrays, as `loom import` reads them.
#include "fuzz_input.hpp"
#include "loom/graph/io/split_dict.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = loom::fuzz::write_input("split_dict.pt", {reinterpret_cast<const char*>(data), size});
  loom::fuzz::expect_parse_or_error([&] { (void)loom::graph::io::read_split_dict(path); });
  return 0;
}
