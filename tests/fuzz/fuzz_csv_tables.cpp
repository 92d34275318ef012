// OGB CSV tables (`loom import ogb`): counts, id rows, float feature rows (then refused where a value
// is not finite, as the importer does), label rows.
#include "fuzz_input.hpp"
#include "loom/graph/finite_values.hpp"
#include "loom/graph/io/csv_tables.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const loom::fuzz::ModeAndBytes input = loom::fuzz::split_mode(data, size, 4);
  const std::string path = loom::fuzz::write_input("table.csv", input.bytes);
  loom::fuzz::expect_parse_or_error([&] {
    namespace io = loom::graph::io;
    switch (input.mode) {
      case 0: io::read_count(path); break;
      case 1: io::read_id_rows(path, 1000); break;
      case 2: {
        auto rows = io::read_float_rows(path);
        loom::graph::NonFinitePolicy refuse;
        loom::graph::enforce_finite(rows.values, rows.cols, path, "feature", refuse, 1);
        break;
      }
      default: io::read_label_rows(path); break;
    }
  });
  return 0;
}
