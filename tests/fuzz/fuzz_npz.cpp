// .npz archives (np.savez, np.savez_compressed; OGB's binary layout): the zip directory read, then
// every array's header parsed and its values read in chunks, as `loom import ogb` streams them.
#include "fuzz_input.hpp"
#include "loom/format/npz_array.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = loom::fuzz::write_input("data.npz", {reinterpret_cast<const char*>(data), size});
  loom::fuzz::expect_parse_or_error([&] {
    const auto archive = loom::format::ZipArchive::open(path);
    for (const auto& key : loom::format::npz_keys(archive)) {
      loom::format::NpzArrayReader reader(archive, key);
      std::vector<char> chunk(4096);
      const auto width = static_cast<std::int64_t>(loom::format::dtype_size(reader.dtype()));
      while (reader.position() < reader.size()) {
        const std::int64_t count = std::min<std::int64_t>(4096 / width, reader.size() - reader.position());
        reader.read(chunk.data(), count);
      }
    }
  });
  return 0;
}
