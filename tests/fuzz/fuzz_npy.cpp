// .npy files (headers and bodies): mapped as a store maps its arrays, then every value read, and a
// float array searched for a value that is not finite as `loom check` does.
#include "fuzz_input.hpp"
#include "loom/format/npy.hpp"
#include "loom/graph/finite_values.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = loom::fuzz::write_input("array.npy", {reinterpret_cast<const char*>(data), size});
  loom::fuzz::expect_parse_or_error([&] {
    const auto array = loom::format::NpyArray::map(path);
    const auto* bytes = static_cast<const unsigned char*>(array.data());
    unsigned sum = 0;
    for (std::size_t i = 0; i < array.nbytes(); ++i) sum += bytes[i];  // every byte the header promises
    (void)sum;
    (void)loom::graph::first_non_finite(array);
  });
  return 0;
}
