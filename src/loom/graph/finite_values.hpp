// Feature values and edge weights must be finite: one NaN or infinity in a feature file trains a
// model to garbage with a finite loss and exit status 0. Importers pass what they read through a
// NonFinitePolicy: without a replacement the first non-finite value is an Error naming the file,
// the row (or line) and the column; with one (`--nan-as VALUE`) every such value becomes VALUE and
// is counted, and the count goes to the store's provenance. first_non_finite() finds the first
// one in a stored array, float32 or float16 (`loom check`).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include <nlohmann/json.hpp>

#include "loom/format/npy.hpp"

namespace loom::graph {

struct NonFinitePolicy {
  std::optional<float> replacement;  // none: a non-finite value is an error
  std::int64_t replaced = 0;         // values replaced so far

  // What provenance records: {"replaced_with": VALUE, "values_replaced": N}, or null when no
  // replacement was asked for.
  nlohmann::json to_json() const;
};

// Checks `values` (rows of `cols`, row-major) read from `path`. first_line > 0: row r was line
// first_line + r of a text file (named in the error as FILE:LINE); 0: a binary file (the error
// names the row, first_row + r: a chunk's rows). `what` names the values ("feature", "edge weight").
void enforce_finite(std::span<float> values, std::int64_t cols, const std::string& path, const std::string& what,
                    NonFinitePolicy& policy, std::int64_t first_line = 0, std::int64_t first_row = 0);
// One value read from line `line` of `path`, field `field` (1-based).
float enforce_finite(float value, const std::string& path, std::int64_t line, int field, const std::string& what,
                     NonFinitePolicy& policy);

// Feature values about to be stored as `dtype` must stay finite there: float16 holds at most 65504
// (65520 and beyond round to infinity). Throws Error naming `path` (the values' source), the row
// (first_row + r) and column of the first value too large, and --feat-dtype.
void check_fits_dtype(std::span<const float> values, std::int64_t cols, format::DType dtype, const std::string& path,
                      std::int64_t first_row = 0);

// The flat index of the first non-finite entry of a float32 or float16 array, or -1 (parallel).
std::int64_t first_non_finite(const format::NpyArray& array);

}  // namespace loom::graph
