// The first layer's product on sparse input rows (a bag of words, a one-hot attribute): a sparse
// CSR x [n, in] (torch::kSparseCsr, float32 or float64 values, int32 or int64 indices) times a
// dense weight [out, in] transposed, without widening x.
//   sparse_linear(x, weight, rows) = x[:rows] @ weight^T   -> dense [rows, out]
// An autograd op with a gradient for the weight only (x is input data, never trained). On CPU
// kernels parallel over rows (cloned per instruction set): forward adds weight^T's rows at each
// row's columns; backward adds each row's output gradient into a per-thread copy of the weight
// gradient at the row's columns (x and the gradient read once), summed after, or, where those
// copies would be large, gathers per column over x's transposed CSR; no atomics. Other devices
// run torch's sparse CSR x dense product (cuSPARSE on a GPU) and its gradient.
// sparse_rows_dropout(x, p, training) drops x's stored values as dropout drops a dense x's (the
// zeros stay zeros either way), keeping x's sparsity pattern.
#pragma once

#include <cstdint>

#include <torch/types.h>

namespace loom::nn {

torch::Tensor sparse_linear(const torch::Tensor& x, const torch::Tensor& weight, std::int64_t rows);
torch::Tensor sparse_rows_dropout(const torch::Tensor& x, double p, bool training);

namespace detail {
// The weight gradient transposed ([in, out]) of x[:rows] (CPU) for the output gradient grad_out:
// by rows (per-thread copies) or by columns (the transposed CSR), as backward picks by size.
torch::Tensor sparse_weight_gradient(const torch::Tensor& x, std::int64_t rows, const torch::Tensor& grad_out,
                                     bool by_rows);
}  // namespace detail

}  // namespace loom::nn
