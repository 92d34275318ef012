#include "loom/graph/io/csv_tables.hpp"

#include <cmath>

#include <fmt/format.h>

#include "loom/core/error.hpp"
#include "loom/core/line_reader.hpp"

namespace loom::graph::io {

namespace {

[[noreturn]] void throw_empty(const std::string& path) { throw Error::in_file(path, 0, "empty file (no data rows)"); }

using Fields = std::vector<std::string_view>;

// Calls `row(fields, reader)` for each line of `path` split at commas, once the line is checked to
// have as many fields as the first (`what` names a row's count, e.g. "feature row has {} values");
// throws naming the file when it has no rows.
template <class Row>
void for_each_csv_row(const std::string& path, const char* what, Row row) {
  core::LineReader reader(path);
  std::string_view line;
  Fields fields;
  std::int64_t width = -1;
  while (reader.next(line)) {
    core::split_fields(line, ",", /*collapse=*/false, fields);
    const auto w = static_cast<std::int64_t>(fields.size());
    if (width < 0) width = w;
    if (w != width)
      throw reader.error(
          fmt::format("{}, expected {} (the width of row 1)", fmt::format(fmt::runtime(what), w), width));
    row(fields, reader);
  }
  if (width < 0) throw_empty(path);
}

}  // namespace

std::int64_t read_count(const std::string& path) {
  core::LineReader reader(path);
  std::string_view line;
  std::vector<std::string_view> fields;
  while (reader.next(line)) {
    core::split_fields(line, ",", /*collapse=*/false, fields);
    if (fields.size() == 1 && fields[0].empty()) continue;
    const auto count = core::parse_int(fields[0], reader, 0);
    if (count < 0) throw reader.error(fmt::format("count {} is negative", count));
    return count;
  }
  throw_empty(path);
}

std::vector<std::int64_t> read_id_rows(const std::string& path, std::int64_t num_ids) {
  core::LineReader reader(path);
  std::string_view line;
  std::vector<std::string_view> fields;
  std::vector<std::int64_t> ids;
  while (reader.next(line)) {
    if (line.empty()) continue;
    core::split_fields(line, ",", /*collapse=*/false, fields);
    if (fields.size() != 1)
      throw reader.error(fmt::format("expected 1 node id per row, found {} fields", fields.size()));
    const auto id = core::parse_int(fields[0], reader, 0);
    if (id < 0 || id >= num_ids) throw reader.error(fmt::format("node id {} is outside [0, {})", id, num_ids));
    ids.push_back(id);
  }
  if (ids.empty()) throw_empty(path);
  return ids;
}

FloatRows read_float_rows(const std::string& path) {
  FloatRows out;
  for_each_csv_row(path, "feature row has {} values", [&](const Fields& fields, core::LineReader& reader) {
    out.cols = static_cast<std::int64_t>(fields.size());
    for (std::int64_t c = 0; c < out.cols; ++c)
      out.values.push_back(core::parse_float(fields[c], reader, static_cast<int>(c)));
    ++out.rows;
  });
  return out;
}

LabelRows read_label_rows(const std::string& path) {
  LabelRows out;
  for_each_csv_row(path, "label row has {} columns", [&](const Fields& fields, core::LineReader& reader) {
    const auto w = static_cast<std::int64_t>(fields.size());
    if (out.rows == 0) {
      out.multi_label = w > 1;
      if (out.multi_label) out.num_classes = w;
    }
    if (out.multi_label) {
      for (std::int64_t c = 0; c < w; ++c) {
        const double v = core::parse_double(fields[c], reader, static_cast<int>(c));
        if (v != 0.0 && v != 1.0)
          throw reader.error(fmt::format("field {}: multi-label value '{}' is not 0 or 1", c + 1, fields[c]));
        out.multi.push_back(static_cast<std::uint8_t>(v));
      }
    } else {
      std::int64_t y = -1;
      const auto text = fields[0];
      // input text: a CSV cell, where nan, NaN and -1 mean no value
      if (!text.empty() && text != "nan" && text != "NaN" && text != "-1") {
        const double v = core::parse_double(text, reader, 0);
        if (std::isnan(v)) {
          y = -1;
        } else if (v != std::floor(v) || v < -1 || v > 1e15) {
          throw reader.error(
              fmt::format("field 1: label '{}' is not a class id (an integer >= 0, or -1 for none)", text));
        } else {
          y = static_cast<std::int64_t>(v);
        }
      }
      if (y < 0) ++out.unlabeled;
      out.num_classes = std::max(out.num_classes, y + 1);
      out.label.push_back(y);
    }
    ++out.rows;
  });
  return out;
}

}  // namespace loom::graph::io
