#include "loom/nn/sparse_linear.hpp"

#include <ATen/Parallel.h>
#include <torch/autograd.h>
#include <torch/torch.h>

#include "loom/core/error.hpp"
#include "loom/nn/quiet_warnings.hpp"
#include "loom/nn/relu_dropout.hpp"
#include "loom/nn/tensor_util.hpp"

namespace loom::nn {

namespace {

// out[r] = sum_{e in row r} val[e] * in[idx[e]] for r in [0, rows): in is [*, width] row-major.
template <class T, class IdT>
void weighted_spmm(const IdT* ptr, const IdT* idx, const T* val, std::int64_t rows, const T* in, std::int64_t width,
                   T* out) {
  at::parallel_for(0, rows, 32, [&](std::int64_t begin, std::int64_t end) {
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
    return {grad_weight_t.t(), torch::Tensor(), torch::Tensor()};
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
