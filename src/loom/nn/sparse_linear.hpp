// The first layer's product on sparse input rows (a bag of words, a one-hot attribute): a sparse
// CSR x [n, in] (torch::kSparseCsr, float32 or float64 values, int32 or int64 indices) times a
// dense weight [out, in] transposed, without widening x.
//   sparse_linear(x, weight, rows) = x[:rows] @ weight^T   -> dense [rows, out]
// An autograd op with a gradient for the weight only (x is input data, never trained). On CPU a
// kernel parallel over rows: forward adds weight^T's rows at each row's columns, backward runs the
// same gather over x's transposed CSR (a column's rows), so there are no atomics. Other devices
// run torch's sparse CSR x dense product (cuSPARSE on a GPU) and its gradient.
// sparse_rows_dropout(x, p, training) drops x's stored values as dropout drops a dense x's (the
// zeros stay zeros either way), keeping x's sparsity pattern.
#pragma once

#include <cstdint>

#include <torch/types.h>

namespace loom::nn {

torch::Tensor sparse_linear(const torch::Tensor& x, const torch::Tensor& weight, std::int64_t rows);
torch::Tensor sparse_rows_dropout(const torch::Tensor& x, double p, bool training);

}  // namespace loom::nn
