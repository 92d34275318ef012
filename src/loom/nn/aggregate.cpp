#include "loom/nn/aggregate.hpp"

#include <ATen/Parallel.h>
#include <torch/autograd.h>

#include "loom/core/error.hpp"
#include "loom/nn/quiet_warnings.hpp"
#include "loom/nn/tensor_util.hpp"

namespace loom::nn {

namespace detail {

// out[r] = row_scale[r] * sum_{e in row r} col_scale[idx[e]] * in[idx[e]] + self_coef[r] * in[r]
// (r < num_self). Null scales mean 1; a null self_coef means no self term. Forward runs it on the
// CSR; backward runs it on the transposed CSR with the two scales swapped.
template <class T, class IdT>
void scaled_spmm(const std::int64_t* ptr, const IdT* idx, std::int64_t rows, const T* row_scale, const T* col_scale,
                 const T* self_coef, std::int64_t num_self, const T* in, std::int64_t width, T* out) {
  at::parallel_for(0, rows, 64, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t r = begin; r < end; ++r) {
      T* __restrict__ o = out + r * width;
      for (std::int64_t f = 0; f < width; ++f) o[f] = T(0);
      for (std::int64_t e = ptr[r]; e < ptr[r + 1]; ++e) {
        const std::int64_t j = idx[e];
        if (e + 2 < ptr[r + 1]) __builtin_prefetch(in + idx[e + 2] * width);  // rows are random gathers
        const T w = col_scale ? col_scale[j] : T(1);
        const T* __restrict__ xj = in + j * width;
        for (std::int64_t f = 0; f < width; ++f) o[f] += w * xj[f];
      }
      const T rs = row_scale ? row_scale[r] : T(1);
      if (self_coef && r < num_self) {
        const T sc = self_coef[r];
        const T* __restrict__ xr = in + r * width;
        for (std::int64_t f = 0; f < width; ++f) o[f] = rs * o[f] + sc * xr[f];
      } else if (row_scale) {
        for (std::int64_t f = 0; f < width; ++f) o[f] *= rs;
      }
    }
  });
}

struct Scales {
  torch::Tensor row, col, self;  // undefined = absent
};

// Per-destination (row) and per-source (col) weights of `kind`, in dtype `dtype`.
Scales scales_of(const MessageGraph& graph, Aggregation kind, torch::ScalarType dtype) {
  Scales s;
  if (kind == Aggregation::kMean) {
    const auto& ptr = graph.indptr();
    const auto deg = (ptr.slice(0, 1) - ptr.slice(0, 0, graph.num_dst())).to(dtype);
    s.row = torch::where(deg > 0, deg.reciprocal(), torch::zeros_like(deg)).contiguous();
  } else if (kind == Aggregation::kGcn) {
    const GcnNorm& norm = graph.gcn_norm();
    s.row = (norm.neighbor_scale.defined() ? norm.dst * norm.neighbor_scale : norm.dst).to(dtype).contiguous();
    s.col = norm.src.to(dtype).contiguous();
    s.self = (norm.src.slice(0, 0, graph.num_dst()) * norm.dst).to(dtype).contiguous();
  }
  return s;
}

// Runs scaled_spmm on (ptr, idx) over rows of `in` into a new [rows, width] tensor (CPU).
torch::Tensor run_kernel(const torch::Tensor& ptr, const torch::Tensor& idx, const torch::Tensor& row_scale,
                         const torch::Tensor& col_scale, const torch::Tensor& self_coef, std::int64_t num_self,
                         const torch::Tensor& in) {
  const std::int64_t rows = ptr.size(0) - 1;
  auto out = torch::empty({rows, in.size(1)}, in.options());
  AT_DISPATCH_FLOATING_TYPES(in.scalar_type(), "loom_scaled_spmm", [&] {
    visit_index_type(idx, [&](auto id_type) {
      using IdT = decltype(id_type);
      scaled_spmm<scalar_t, IdT>(ptr.data_ptr<std::int64_t>(), idx.data_ptr<IdT>(), rows,
                                 ptr_or_null<scalar_t>(row_scale), ptr_or_null<scalar_t>(col_scale),
                                 ptr_or_null<scalar_t>(self_coef), num_self, in.data_ptr<scalar_t>(), in.size(1),
                                 out.data_ptr<scalar_t>());
    });
  });
  return out;
}

// The same product in torch ops on any device: the scales as row-wise multiplications around one
// sparse CSR x dense product with unit weights (cuSPARSE's SpMM on a GPU: no message tensor of
// [edges, width], no atomics, and no host synchronisation).
torch::Tensor run_sparse_product(const torch::Tensor& ptr, const torch::Tensor& idx, const torch::Tensor& row_scale,
                                 const torch::Tensor& col_scale, const torch::Tensor& self_coef, std::int64_t num_self,
                                 const torch::Tensor& in) {
  const std::int64_t rows = ptr.size(0) - 1;
  const torch::Tensor scaled_in = col_scale.defined() ? in * col_scale.unsqueeze(1) : in;
  const torch::Tensor unit = torch::ones({idx.size(0)}, in.options());
  const QuietWarnings quiet;
  const torch::Tensor csr = at::_sparse_csr_tensor_unsafe(ptr.to(idx.scalar_type()), idx, unit, {rows, in.size(0)},
                                                          in.options().layout(torch::kSparseCsr));
  torch::Tensor out = torch::mm(csr, scaled_in);
  if (row_scale.defined()) out.mul_(row_scale.unsqueeze(1));
  if (self_coef.defined()) out.slice(0, 0, num_self).addcmul_(self_coef.unsqueeze(1), in.slice(0, 0, num_self));
  return out;
}

// How AggregateFunction multiplies: the CPU kernel, or torch's sparse product (other devices).
enum class Product { kCpuKernel, kSparse };

torch::Tensor run_product(Product product, const torch::Tensor& ptr, const torch::Tensor& idx,
                          const torch::Tensor& row_scale, const torch::Tensor& col_scale,
                          const torch::Tensor& self_coef, std::int64_t num_self, const torch::Tensor& in) {
  if (product == Product::kCpuKernel) return run_kernel(ptr, idx, row_scale, col_scale, self_coef, num_self, in);
  return run_sparse_product(ptr, idx, row_scale, col_scale, self_coef, num_self, in);
}

class AggregateFunction : public torch::autograd::Function<AggregateFunction> {
 public:
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& x, const MessageGraph& graph,
                               Aggregation kind, Product product) {
    const Scales s = scales_of(graph, kind, x.scalar_type());
    if (x.requires_grad()) {
      const TransposedCsr& t = graph.transposed();
      ctx->saved_data["t_indptr"] = t.t_indptr;
      ctx->saved_data["t_dst"] = t.t_dst;
      ctx->saved_data["row"] = s.row;
      ctx->saved_data["col"] = s.col;
      ctx->saved_data["self"] = s.self;
      ctx->saved_data["num_dst"] = graph.num_dst();
      ctx->saved_data["product"] = static_cast<std::int64_t>(product);
    }
    return run_product(product, graph.indptr(), graph.indices(), s.row, s.col, s.self, graph.num_dst(), x);
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    const torch::Tensor grad_out = grads[0].contiguous();
    auto& d = ctx->saved_data;
    torch::Tensor grad_x =
        run_product(static_cast<Product>(d["product"].toInt()), d["t_indptr"].toTensor(), d["t_dst"].toTensor(),
                    saved_or_undefined(d["col"]), saved_or_undefined(d["row"]), saved_or_undefined(d["self"]),
                    d["num_dst"].toInt(), grad_out);
    return {grad_x, torch::Tensor(), torch::Tensor(), torch::Tensor()};
  }
};

torch::Tensor aggregate_generic(const MessageGraph& graph, const torch::Tensor& x, Aggregation kind) {
  return AggregateFunction::apply(x.contiguous(), graph, kind, Product::kSparse);
}

}  // namespace detail

torch::Tensor aggregate(const MessageGraph& graph, const torch::Tensor& x, Aggregation kind) {
  LOOM_CHECK_ARG(x.dim() == 2 && x.size(0) == graph.num_src(), "x", "want [{} sources, features], got {}",
                 graph.num_src(), detail::shape_string(x));
  LOOM_CHECK_ARG(x.scalar_type() == torch::kFloat || x.scalar_type() == torch::kDouble, "x",
                 "want float32 or float64 features");
  LOOM_CHECK_ARG(x.device() == graph.device(), "x", "features on {} but graph on {}", x.device().str(),
                 graph.device().str());
  if (!x.is_cpu()) return detail::aggregate_generic(graph, x, kind);
  return detail::AggregateFunction::apply(x.contiguous(), graph, kind, detail::Product::kCpuKernel);
}

}  // namespace loom::nn
