// OGB CSV tables (`loom import ogb`): counts, id rows, float feature rows, label rows.
#include "fuzz_input.hpp"
#include "loom/graph/io/csv_tables.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const loom::fuzz::ModeAndBytes input = loom::fuzz::split_mode(data, size, 4);
  const std::string path = loom::fuzz::write_input("table.csv", input.bytes);
  loom::fuzz::expect_parse_or_error([&] {
    namespace io = loom::graph::io;
    switch (input.mode) {
      case 0: io::read_count(path); break;
      case 1: io::read_id_rows(path, 1000); break;
      case 2: io::read_float_rows(path); break;
      default: io::read_label_rows(path); break;
    }
  });
  return 0;
}
