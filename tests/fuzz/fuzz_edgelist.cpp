// Edge lists (`loom import edgelist`): plain text, gzip-compressed text, or raw bytes named .gz;
// the first byte also picks weighted / numeric-or-string ids / skip-bad-lines.
#include <zlib.h>

#include "fuzz_input.hpp"
#include "loom/graph/io/edgelist.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const loom::fuzz::ModeAndBytes input = loom::fuzz::split_mode(data, size, 16);
  loom::graph::io::EdgeListImportOptions o;
  o.weighted = input.mode & 4;
  o.skip_bad_lines = input.mode & 8;
  if ((input.mode & 3) == 1) {  // valid gzip around the fuzzed text
    o.path = loom::fuzz::scratch_dir() + "/edges.txt.gz";
    gzFile gz = gzopen(o.path.c_str(), "wb");
    gzwrite(gz, input.bytes.data(), static_cast<unsigned>(input.bytes.size()));
    gzclose(gz);
  } else {
    o.path = loom::fuzz::write_input((input.mode & 3) == 2 ? "edges.gz" : "edges.txt", input.bytes);
  }
  loom::fuzz::expect_parse_or_error([&] { loom::graph::io::import_edgelist(o); });
  return 0;
}
