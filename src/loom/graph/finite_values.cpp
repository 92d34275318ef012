#include "loom/graph/finite_values.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>

#include <fmt/format.h>

#include "loom/core/error.hpp"
#include "loom/format/half.hpp"
#include "loom/core/parallel.hpp"

namespace loom::graph {

namespace {

constexpr const char* kHowToReplace = "--nan-as VALUE replaces such values";

}  // namespace

void check_fits_dtype(std::span<const float> values, std::int64_t cols, format::DType dtype, const std::string& path,
                      std::int64_t first_row) {
  if (dtype != format::DType::kFloat16) return;
  constexpr float kOverflows = 65520.0f;  // the smallest magnitude float16 rounds to infinity
  const auto bad = std::find_if(values.begin(), values.end(), [](float v) { return std::fabs(v) >= kOverflows; });
  if (bad == values.end()) return;
  const auto at = static_cast<std::int64_t>(bad - values.begin());
  throw Error::in_file(
      path, 0,
      fmt::format("row {}, column {}: feature value {} is too large for float16 (at most 65504; "
                  "it would be stored as infinity): import with --feat-dtype float32 (or bfloat16)",
                  first_row + at / std::max<std::int64_t>(cols, 1), at % std::max<std::int64_t>(cols, 1), *bad));
}

nlohmann::json NonFinitePolicy::to_json() const {
  if (!replacement) return nullptr;
  return {{"replaced_with", *replacement}, {"values_replaced", replaced}};
}

void enforce_finite(std::span<float> values, std::int64_t cols, const std::string& path, const std::string& what,
                    NonFinitePolicy& policy, std::int64_t first_line, std::int64_t first_row) {
  const auto n = static_cast<std::int64_t>(values.size());
  if (policy.replacement) {
    for (float& v : values) {
      if (!std::isfinite(v)) {
        v = *policy.replacement;
        ++policy.replaced;
      }
    }
    return;
  }
  const std::int64_t bad = core::first_failing(n, [&](std::int64_t i) { return std::isfinite(values[i]); });
  if (bad < 0) return;
  const std::int64_t row = bad / std::max<std::int64_t>(1, cols), col = bad % std::max<std::int64_t>(1, cols);
  if (first_line > 0)
    throw Error::in_file(
        path, first_line + row,
        fmt::format("field {}: {} value {} is not finite ({})", col + 1, what, values[bad], kHowToReplace));
  throw Error::in_file(path, 0,
                       fmt::format("row {}, column {}: {} value {} is not finite ({})", first_row + row, col, what,
                                   values[bad], kHowToReplace));
}

float enforce_finite(float value, const std::string& path, std::int64_t line, int field, const std::string& what,
                     NonFinitePolicy& policy) {
  if (std::isfinite(value)) return value;
  if (!policy.replacement)
    throw Error::in_file(path, line,
                         fmt::format("field {}: {} {} is not finite ({})", field, what, value, kHowToReplace));
  ++policy.replaced;
  return *policy.replacement;
}

std::int64_t first_non_finite(const format::NpyArray& array) {
  if (array.dtype() == format::DType::kFloat32) {
    const auto v = array.span<float>();
    return core::first_failing(array.size(), [&](std::int64_t i) { return std::isfinite(v[i]); });
  }
  if (array.dtype() == format::DType::kFloat16) {
    // A half is NaN or infinite where its exponent bits are all ones.
    const auto v = array.span<format::Half>();
    return core::first_failing(array.size(), [&](std::int64_t i) { return (v[i].bits & 0x7c00u) != 0x7c00u; });
  }
  return -1;
}

}  // namespace loom::graph
