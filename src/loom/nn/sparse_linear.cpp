#include "loom/nn/sparse_linear.hpp"

#include <algorithm>
#include <type_traits>

#include <ATen/Parallel.h>
#include <torch/autograd.h>
#include <torch/torch.h>

#include "loom/core/cpu_clones.hpp"
#include "loom/core/error.hpp"
#include "loom/nn/quiet_warnings.hpp"
#include "loom/nn/relu_dropout.hpp"
#include "loom/nn/tensor_util.hpp"

namespace loom::nn {

namespace {

// out[r] = sum_{e in row r} val[e] * in[idx[e]] for r in [begin, end): in is [*, width] row-major.
template <class T, class IdT>
LOOM_ALWAYS_INLINE void spmm_rows(const IdT* ptr, const IdT* idx, const T* val, std::int64_t begin, std::int64_t end,
                                  const T* in, std::int64_t width, T* out) {
  for (std::int64_t r = begin; r < end; ++r) {
    T* __restrict__ o = out + r * width;
    for (std::int64_t f = 0; f < width; ++f) o[f] = T(0);
    for (std::int64_t e = ptr[r]; e < ptr[r + 1]; ++e) {
      if (e + 2 < ptr[r + 1]) __builtin_prefetch(in + static_cast<std::int64_t>(idx[e + 2]) * width);
      const T v = val[e];
      const T* __restrict__ w = in + static_cast<std::int64_t>(idx[e]) * width;
      for (std::int64_t f = 0; f < width; ++f) o[f] += v * w[f];
    }
  }
}

// acc[idx[e]] += val[e] * grad[r] for the entries e of rows r in [begin, end): the weight
// gradient's rows (acc: [columns, width]) from x's rows and the output's gradient, each read once.
template <class T, class IdT>
LOOM_ALWAYS_INLINE void scatter_rows(const IdT* ptr, const IdT* idx, const T* val, std::int64_t begin, std::int64_t end,
                                     const T* grad, std::int64_t width, T* acc) {
  for (std::int64_t r = begin; r < end; ++r) {
    const T* __restrict__ g = grad + r * width;
    for (std::int64_t e = ptr[r]; e < ptr[r + 1]; ++e) {
      const T v = val[e];
      T* __restrict__ a = acc + static_cast<std::int64_t>(idx[e]) * width;
      for (std::int64_t f = 0; f < width; ++f) a[f] += v * g[f];
    }
  }
}

// Which row kernel: the product (spmm_rows) or the weight gradient's scatter (scatter_rows).
enum class RowKernel { kProduct, kScatter };

template <class T, class IdT>
LOOM_ALWAYS_INLINE void run_rows(RowKernel kernel, const IdT* ptr, const IdT* idx, const T* val, std::int64_t begin,
                                 std::int64_t end, const T* rows_in, std::int64_t width, T* out) {
  if (kernel == RowKernel::kProduct)
    spmm_rows(ptr, idx, val, begin, end, rows_in, width, out);
  else
    scatter_rows(ptr, idx, val, begin, end, rows_in, width, out);
}

// The kernels on float32 rows, cloned per instruction set (their inner loops are most of a
// sparse first layer's time), for int32 and int64 indices.
LOOM_CPU_CLONES void run_rows_float_i32(RowKernel kernel, const std::int32_t* ptr, const std::int32_t* idx,
                                        const float* val, std::int64_t begin, std::int64_t end, const float* rows_in,
                                        std::int64_t width, float* out) {
  run_rows(kernel, ptr, idx, val, begin, end, rows_in, width, out);
}
LOOM_CPU_CLONES void run_rows_float_i64(RowKernel kernel, const std::int64_t* ptr, const std::int64_t* idx,
                                        const float* val, std::int64_t begin, std::int64_t end, const float* rows_in,
                                        std::int64_t width, float* out) {
  run_rows(kernel, ptr, idx, val, begin, end, rows_in, width, out);
}

// run_rows through the float32 clones where there is one.
template <class T, class IdT>
void row_kernel(RowKernel kernel, const IdT* ptr, const IdT* idx, const T* val, std::int64_t begin, std::int64_t end,
                const T* rows_in, std::int64_t width, T* out) {
  if constexpr (std::is_same_v<T, float> && std::is_same_v<IdT, std::int32_t>)
    run_rows_float_i32(kernel, ptr, idx, val, begin, end, rows_in, width, out);
  else if constexpr (std::is_same_v<T, float>)
    run_rows_float_i64(kernel, ptr, idx, val, begin, end, rows_in, width, out);
  else
    run_rows(kernel, ptr, idx, val, begin, end, rows_in, width, out);
}

// spmm_rows over [0, rows), in parallel.
template <class T, class IdT>
void weighted_spmm(const IdT* ptr, const IdT* idx, const T* val, std::int64_t rows, const T* in, std::int64_t width,
                   T* out) {
  at::parallel_for(0, rows, 32, [&](std::int64_t begin, std::int64_t end) {
    row_kernel(RowKernel::kProduct, ptr, idx, val, begin, end, in, width, out);
  });
}

// x[:rows]'s CSR transposed: for each of `columns` columns, the rows holding it and their values.
template <class T, class IdT>
void transpose_csr(const IdT* ptr, const IdT* idx, const T* val, std::int64_t rows, std::int64_t columns,
                   std::vector<std::int64_t>& t_ptr, std::vector<std::int64_t>& t_row, std::vector<T>& t_val) {
  const std::int64_t nnz = ptr[rows];
  t_ptr.assign(static_cast<std::size_t>(columns) + 1, 0);
  for (std::int64_t e = 0; e < nnz; ++e) ++t_ptr[static_cast<std::size_t>(idx[e]) + 1];
  for (std::int64_t c = 0; c < columns; ++c) t_ptr[c + 1] += t_ptr[c];
  std::vector<std::int64_t> at(t_ptr.begin(), t_ptr.end() - 1);
  t_row.resize(static_cast<std::size_t>(nnz));
  t_val.resize(static_cast<std::size_t>(nnz));
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t e = ptr[r]; e < ptr[r + 1]; ++e) {
      const std::int64_t k = at[idx[e]]++;
      t_row[k] = r;
      t_val[k] = val[e];
    }
  }
}

// The first `rows` rows of CSR x (a view of its arrays).
torch::Tensor head_rows(const torch::Tensor& x, std::int64_t rows) {
  if (rows == x.size(0)) return x;
  const torch::Tensor crow = x.crow_indices().slice(0, 0, rows + 1);
  const std::int64_t nnz = crow[rows].item<std::int64_t>();
  const QuietWarnings quiet;
  return at::_sparse_csr_tensor_unsafe(crow, x.col_indices().slice(0, 0, nnz), x.values().slice(0, 0, nnz),
                                       {rows, x.size(1)}, x.options());
}

// The weight gradient (transposed: [columns, width]) where every thread's private copy fits in
// kScatterBytes: each thread adds its rows' products into its copy (x's rows and the output's
// gradient read once each), then the copies are summed. Larger weights take the transposed CSR
// (a gather per column, no private copies).
constexpr std::int64_t kScatterBytes = std::int64_t{256} << 20;

// The weight gradient gathered per column over x's transposed CSR.
torch::Tensor weight_gradient_by_columns(const torch::Tensor& x, std::int64_t rows, const torch::Tensor& grad_out) {
  const std::int64_t columns = x.size(1);
  auto grad_weight_t = torch::empty({columns, grad_out.size(1)}, grad_out.options());
  AT_DISPATCH_FLOATING_TYPES(grad_out.scalar_type(), "loom_sparse_linear_backward", [&] {
    detail::visit_index_type(x.col_indices(), [&](auto id_type) {
      using IdT = decltype(id_type);
      std::vector<std::int64_t> t_ptr, t_row;
      std::vector<scalar_t> t_val;
      transpose_csr<scalar_t, IdT>(x.crow_indices().data_ptr<IdT>(), x.col_indices().data_ptr<IdT>(),
                                   x.values().data_ptr<scalar_t>(), rows, columns, t_ptr, t_row, t_val);
      weighted_spmm<scalar_t, std::int64_t>(t_ptr.data(), t_row.data(), t_val.data(), columns,
                                            grad_out.data_ptr<scalar_t>(), grad_out.size(1),
                                            grad_weight_t.data_ptr<scalar_t>());
    });
  });
  return grad_weight_t;
}

torch::Tensor weight_gradient_by_rows(const torch::Tensor& x, std::int64_t rows, const torch::Tensor& grad_out) {
  const std::int64_t width = grad_out.size(1), threads = at::get_num_threads();
  auto partial = torch::zeros({threads, x.size(1), width}, grad_out.options());
  AT_DISPATCH_FLOATING_TYPES(grad_out.scalar_type(), "loom_sparse_linear_scatter", [&] {
    detail::visit_index_type(x.col_indices(), [&](auto id_type) {
      using IdT = decltype(id_type);
      const IdT* ptr = x.crow_indices().data_ptr<IdT>();
      const IdT* idx = x.col_indices().data_ptr<IdT>();
      const scalar_t* val = x.values().data_ptr<scalar_t>();
      const scalar_t* grad = grad_out.data_ptr<scalar_t>();
      at::parallel_for(0, rows, std::max<std::int64_t>(1, rows / threads), [&](std::int64_t begin, std::int64_t end) {
        scalar_t* acc = partial.data_ptr<scalar_t>() + at::get_thread_num() * x.size(1) * width;
        row_kernel(RowKernel::kScatter, ptr, idx, val, begin, end, grad, width, acc);
      });
    });
  });
  return threads == 1 ? partial[0] : partial.sum(0);
}

class SparseLinearFunction : public torch::autograd::Function<SparseLinearFunction> {
 public:
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& weight,
                               const torch::Tensor& x, std::int64_t rows) {
    ctx->saved_data["x"] = x;
    ctx->saved_data["rows"] = rows;
    const torch::Tensor weight_t = weight.t().contiguous();  // [in, out]: a column's row of weights
    auto out = torch::empty({rows, weight.size(0)}, weight.options());
    AT_DISPATCH_FLOATING_TYPES(weight.scalar_type(), "loom_sparse_linear", [&] {
      detail::visit_index_type(x.col_indices(), [&](auto id_type) {
        using IdT = decltype(id_type);
        weighted_spmm<scalar_t, IdT>(x.crow_indices().data_ptr<IdT>(), x.col_indices().data_ptr<IdT>(),
                                     x.values().data_ptr<scalar_t>(), rows, weight_t.data_ptr<scalar_t>(),
                                     weight_t.size(1), out.data_ptr<scalar_t>());
      });
    });
    return out;
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    const torch::Tensor grad_out = grads[0].contiguous();
    const torch::Tensor x = ctx->saved_data["x"].toTensor();
    const std::int64_t rows = ctx->saved_data["rows"].toInt();
    const bool by_rows =
        at::get_num_threads() * x.size(1) * grad_out.size(1) * grad_out.element_size() <= kScatterBytes;
    return {detail::sparse_weight_gradient(x, rows, grad_out, by_rows).t(), torch::Tensor(), torch::Tensor()};
  }
};

void check_sparse_input(const torch::Tensor& x, const torch::Tensor& weight, std::int64_t rows) {
  LOOM_CHECK_ARG(x.layout() == torch::kSparseCsr && x.dim() == 2, "x", "want a sparse CSR matrix, got {} of {}",
                 detail::shape_string(x), c10::str(x.layout()));
  LOOM_CHECK_ARG(weight.dim() == 2 && weight.size(1) == x.size(1), "weight", "want [out, {}], got {}", x.size(1),
                 detail::shape_string(weight));
  LOOM_CHECK_ARG(x.values().scalar_type() == weight.scalar_type(), "x", "values of {} for a weight of {}",
                 c10::toString(x.values().scalar_type()), c10::toString(weight.scalar_type()));
  LOOM_CHECK_ARG(x.device() == weight.device(), "x", "rows on {} but weight on {}", x.device().str(),
                 weight.device().str());
  LOOM_CHECK_ARG(rows >= 0 && rows <= x.size(0), "rows", "{} rows of a {}-row x", rows, x.size(0));
}

}  // namespace

namespace detail {

torch::Tensor sparse_weight_gradient(const torch::Tensor& x, std::int64_t rows, const torch::Tensor& grad_out,
                                     bool by_rows) {
  return by_rows ? weight_gradient_by_rows(x, rows, grad_out) : weight_gradient_by_columns(x, rows, grad_out);
}

}  // namespace detail

torch::Tensor sparse_linear(const torch::Tensor& x, const torch::Tensor& weight, std::int64_t rows) {
  check_sparse_input(x, weight, rows);
  if (!x.is_cpu()) return torch::mm(head_rows(x, rows), weight.t());
  const QuietWarnings quiet;
  const torch::Tensor csr = at::_sparse_csr_tensor_unsafe(x.crow_indices().contiguous(), x.col_indices().contiguous(),
                                                          x.values().contiguous(), x.sizes(), x.options());
  return SparseLinearFunction::apply(weight.contiguous(), csr, rows);
}

torch::Tensor sparse_rows_dropout(const torch::Tensor& x, double p, bool training) {
  if (!training || p == 0) return x;
  const QuietWarnings quiet;
  return at::_sparse_csr_tensor_unsafe(x.crow_indices(), x.col_indices(), nn::dropout(x.values(), p, training),
                                       x.sizes(), x.options());
}

}  // namespace loom::nn
