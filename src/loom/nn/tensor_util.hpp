// Internal to nn/: small tensor helpers shared by the kernels. visit_index_type calls f(IdT{})
// with IdT = int32_t or int64_t matching an index tensor's dtype, so a CSR kernel is written once
// as a template over its index type; shape_string formats sizes for error messages ("[3, 4]").
#pragma once

#include <cstdint>
#include <string>

#include <fmt/format.h>
#include <torch/types.h>

namespace loom::nn::detail {

template <class F>
decltype(auto) visit_index_type(const torch::Tensor& indices, F&& f) {
  if (indices.scalar_type() == torch::kInt) return f(std::int32_t{});
  return f(std::int64_t{});
}

inline std::string shape_string(const torch::Tensor& t) {
  if (!t.defined()) return "undefined";
  return fmt::format("[{}]", fmt::join(t.sizes().begin(), t.sizes().end(), ", "));
}

}  // namespace loom::nn::detail
