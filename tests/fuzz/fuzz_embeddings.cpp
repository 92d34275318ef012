// Embedding files (`loom eval ... EMB`): word2vec text, word2vec binary, and .npy with its
// vocabulary file (the input split in two at its first NUL byte).
#include "fuzz_input.hpp"
#include "loom/embed/embeddings_io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const loom::fuzz::ModeAndBytes input = loom::fuzz::split_mode(data, size, 3);
  std::string path;
  if (input.mode == 0) {
    path = loom::fuzz::write_input("vectors.txt", input.bytes);
  } else if (input.mode == 1) {
    path = loom::fuzz::write_input("vectors.bin", input.bytes);
  } else {
    const std::size_t cut = std::min(input.bytes.find('\0'), input.bytes.size());
    path = loom::fuzz::write_input("vectors.npy", input.bytes.substr(0, cut));
    loom::fuzz::write_input(loom::embed::vocab_path_for(path).substr(loom::fuzz::scratch_dir().size() + 1),
                            input.bytes.substr(std::min(cut + 1, input.bytes.size())));
  }
  loom::fuzz::expect_parse_or_error([&] { loom::embed::read_embeddings(path); });
  return 0;
}
