// Internal to nn/: small tensor helpers shared by the kernels. visit_index_type calls f(IdT{})
// with IdT = int32_t or int64_t matching an index tensor's dtype, so a CSR kernel is written once
// as a template over its index type; shape_string formats sizes for error messages ("[3, 4]");
// ptr_or_null and saved_or_undefined read optional tensors (undefined = absent) into kernels and
// back out of an autograd context.
#pragma once

#include <cstdint>
#include <string>

#include <fmt/format.h>
#include <ATen/core/ivalue.h>
#include <torch/types.h>

namespace loom::nn::detail {

template <class F>
decltype(auto) visit_index_type(const torch::Tensor& indices, F&& f) {
  if (indices.scalar_type() == torch::kInt) return f(std::int32_t{});
  return f(std::int64_t{});
}

template <class T>
const T* ptr_or_null(const torch::Tensor& t) {
  return t.defined() ? t.data_ptr<T>() : nullptr;
}

inline torch::Tensor saved_or_undefined(const c10::IValue& v) { return v.isTensor() ? v.toTensor() : torch::Tensor(); }

inline std::string shape_string(const torch::Tensor& t) {
  if (!t.defined()) return "undefined";
  return fmt::format("[{}]", fmt::join(t.sizes().begin(), t.sizes().end(), ", "));
}

}  // namespace loom::nn::detail
