// Readers for the comma-separated tables of an OGB raw directory (gzip or plain): a single
// count, integer id rows, float feature rows and label rows. Each checks the shape it expects
// and throws loom::Error naming the file and line of the first problem.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace loom::graph::io {

// The integer on the first line (num-node-list.csv, num-edge-list.csv).
std::int64_t read_count(const std::string& path);

// One id per row, each in [0, num_ids) (split files).
std::vector<std::int64_t> read_id_rows(const std::string& path, std::int64_t num_ids);

// Rows of comma-separated floats, all as wide as the first.
struct FloatRows {
  std::vector<float> values;  // rows * cols, row-major
  std::int64_t rows = 0, cols = 0;
};
FloatRows read_float_rows(const std::string& path);

// One class id per row (-1, "nan" or an empty field = unlabeled; floats with integral values
// accepted), or several 0/1 columns per row (multi-label).
struct LabelRows {
  bool multi_label = false;
  std::vector<std::int64_t> label;         // single-label: one per row
  std::vector<std::uint8_t> multi;         // multi-label: rows * num_classes
  std::int64_t rows = 0, num_classes = 0;  // single-label: max class id + 1
  std::int64_t unlabeled = 0;              // single-label rows with no label
};
LabelRows read_label_rows(const std::string& path);

}  // namespace loom::graph::io
