#include "loom/nn/gat_aggregate.hpp"

#include <cmath>
#include <limits>

#include <ATen/Parallel.h>
#include <torch/autograd.h>

#include "loom/core/error.hpp"
#include "loom/nn/tensor_util.hpp"

namespace loom::nn {

namespace detail {

template <class T>
struct GatShape {
  std::int64_t num_dst, heads, width;
  T slope;
  bool self_loops;
};

template <class T>
inline T leaky(T s, T slope) {
  return s > T(0) ? s : slope * s;
}

// Forward: alpha [E, H], alpha_self [num_dst, H] (when self_loops), out [num_dst, H, F]. keep and
// keep_self (null = 1) scale each coefficient in the sum (attention dropout); alpha stays unscaled.
template <class T, class IdT>
void gat_forward(const GatShape<T>& g, const std::int64_t* ptr, const IdT* idx, const T* x, const T* a_src,
                 const T* a_dst, const T* keep, const T* keep_self, T* alpha, T* alpha_self, T* out) {
  const std::int64_t H = g.heads, F = g.width;
  at::parallel_for(0, g.num_dst, 32, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t i = begin; i < end; ++i) {
      T* oi = out + i * H * F;
      for (std::int64_t k = 0; k < H * F; ++k) oi[k] = T(0);
      for (std::int64_t h = 0; h < H; ++h) {
        const T ad = a_dst[i * H + h];
        T m = -std::numeric_limits<T>::infinity();
        for (std::int64_t e = ptr[i]; e < ptr[i + 1]; ++e) m = std::max(m, leaky(a_src[idx[e] * H + h] + ad, g.slope));
        const T z_self = g.self_loops ? leaky(a_src[i * H + h] + ad, g.slope) : T(0);
        if (g.self_loops) m = std::max(m, z_self);
        if (m == -std::numeric_limits<T>::infinity()) continue;  // no edge at all
        T denom = T(0);
        for (std::int64_t e = ptr[i]; e < ptr[i + 1]; ++e) {
          const T w = std::exp(leaky(a_src[idx[e] * H + h] + ad, g.slope) - m);
          alpha[e * H + h] = w;
          denom += w;
        }
        const T w_self = g.self_loops ? std::exp(z_self - m) : T(0);
        denom += w_self;
        const T inv = T(1) / denom;
        T* __restrict__ o = oi + h * F;
        for (std::int64_t e = ptr[i]; e < ptr[i + 1]; ++e) {
          const T a = alpha[e * H + h] * inv;
          alpha[e * H + h] = a;
          const T kept = keep ? a * keep[e * H + h] : a;
          const T* __restrict__ xj = x + (idx[e] * H + h) * F;
          for (std::int64_t f = 0; f < F; ++f) o[f] += kept * xj[f];
        }
        if (g.self_loops) {
          const T a = w_self * inv;
          alpha_self[i * H + h] = a;
          const T kept = keep_self ? a * keep_self[i * H + h] : a;
          const T* xi = x + (i * H + h) * F;
          for (std::int64_t f = 0; f < F; ++f) o[f] += kept * xi[f];
        }
      }
    }
  });
}

// Backward pass 1, per destination row: ds = d loss / d (a_src[j] + a_dst[i]) for every edge
// (and self-loop), and grad_a_dst as its row sums. With dropout (keep k_e), out = sum alpha_e k_e
// x_j, so d loss / d alpha_e = k_e <g_i, x_j> and the softmax's sum_e alpha_e k_e <g_i, x_j> is
// still <g_i, out_i>.
template <class T, class IdT>
void gat_backward_rows(const GatShape<T>& g, const std::int64_t* ptr, const IdT* idx, const T* x, const T* a_src,
                       const T* a_dst, const T* alpha, const T* alpha_self, const T* keep, const T* keep_self,
                       const T* out, const T* grad_out, T* ds, T* ds_self, T* grad_a_dst) {
  const std::int64_t H = g.heads, F = g.width;
  auto dot = [F](const T* a, const T* b) {
    T s = T(0);
    for (std::int64_t f = 0; f < F; ++f) s += a[f] * b[f];
    return s;
  };
  at::parallel_for(0, g.num_dst, 32, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t i = begin; i < end; ++i) {
      for (std::int64_t h = 0; h < H; ++h) {
        const T* gi = grad_out + (i * H + h) * F;
        const T c = dot(gi, out + (i * H + h) * F);  // sum_e alpha_e <g_i, x_j>
        const T ad = a_dst[i * H + h];
        T row_sum = T(0);
        for (std::int64_t e = ptr[i]; e < ptr[i + 1]; ++e) {
          const std::int64_t j = idx[e];
          const T k = keep ? keep[e * H + h] : T(1);
          const T dz = alpha[e * H + h] * (k * dot(gi, x + (j * H + h) * F) - c);
          const T d = a_src[j * H + h] + ad > T(0) ? dz : g.slope * dz;
          ds[e * H + h] = d;
          row_sum += d;
        }
        if (g.self_loops) {
          const T k = keep_self ? keep_self[i * H + h] : T(1);
          const T dz = alpha_self[i * H + h] * (k * dot(gi, x + (i * H + h) * F) - c);
          const T d = a_src[i * H + h] + ad > T(0) ? dz : g.slope * dz;
          ds_self[i * H + h] = d;
          row_sum += d;
        }
        grad_a_dst[i * H + h] = row_sum;
      }
    }
  });
}

// Backward pass 2, per source through the transposed CSR: grad_x[j] = sum alpha_e k_e grad_out[dst],
// grad_a_src[j] = sum ds_e (plus the self-loop terms for j < num_dst).
template <class T, class IdT>
void gat_backward_cols(const GatShape<T>& g, std::int64_t num_src, const std::int64_t* tptr, const IdT* tdst,
                       const std::int64_t* tedge, const T* alpha, const T* alpha_self, const T* keep,
                       const T* keep_self, const T* ds, const T* ds_self, const T* grad_out, T* grad_x, T* grad_a_src) {
  const std::int64_t H = g.heads, F = g.width;
  at::parallel_for(0, num_src, 32, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t j = begin; j < end; ++j) {
      T* gx = grad_x ? grad_x + j * H * F : nullptr;
      if (gx) {
        for (std::int64_t k = 0; k < H * F; ++k) gx[k] = T(0);
      }
      for (std::int64_t h = 0; h < H; ++h) grad_a_src[j * H + h] = T(0);
      for (std::int64_t q = tptr[j]; q < tptr[j + 1]; ++q) {
        const std::int64_t i = tdst[q], e = tedge[q];
        for (std::int64_t h = 0; h < H; ++h) {
          grad_a_src[j * H + h] += ds[e * H + h];
          if (!gx) continue;
          const T a = keep ? alpha[e * H + h] * keep[e * H + h] : alpha[e * H + h];
          const T* __restrict__ gi = grad_out + (i * H + h) * F;
          T* __restrict__ o = gx + h * F;
          for (std::int64_t f = 0; f < F; ++f) o[f] += a * gi[f];
        }
      }
      if (g.self_loops && j < g.num_dst) {
        for (std::int64_t h = 0; h < H; ++h) {
          grad_a_src[j * H + h] += ds_self[j * H + h];
          if (!gx) continue;
          const T a = keep_self ? alpha_self[j * H + h] * keep_self[j * H + h] : alpha_self[j * H + h];
          const T* gj = grad_out + (j * H + h) * F;
          T* o = gx + h * F;
          for (std::int64_t f = 0; f < F; ++f) o[f] += a * gj[f];
        }
      }
    }
  });
}

// The attention dropout's scales per edge and per self-loop (undefined = no dropout). Passed to the
// autograd function as one non-tensor argument: they are constants, not inputs to differentiate.
struct AttentionKeep {
  torch::Tensor edges, self;
};

class GatFunction : public torch::autograd::Function<GatFunction> {
 public:
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& x,
                               const torch::Tensor& a_src, const torch::Tensor& a_dst, const MessageGraph& graph,
                               double negative_slope, bool self_loops, const AttentionKeep& dropped) {
    const torch::Tensor& keep = dropped.edges;
    const torch::Tensor& keep_self = dropped.self;
    const std::int64_t nd = graph.num_dst(), heads = x.size(1), width = x.size(2);
    auto out = torch::empty({nd, heads, width}, x.options());
    auto alpha = torch::empty({graph.num_edges(), heads}, x.options());
    auto alpha_self = torch::empty({self_loops ? nd : 0, heads}, x.options());
    AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "loom_gat_forward", [&] {
      const GatShape<scalar_t> shape{nd, heads, width, static_cast<scalar_t>(negative_slope), self_loops};
      visit_index_type(graph.indices(), [&](auto id_type) {
        using IdT = decltype(id_type);
        gat_forward<scalar_t, IdT>(shape, graph.indptr().data_ptr<std::int64_t>(), graph.indices().data_ptr<IdT>(),
                                   x.data_ptr<scalar_t>(), a_src.data_ptr<scalar_t>(), a_dst.data_ptr<scalar_t>(),
                                   ptr_or_null<scalar_t>(keep), ptr_or_null<scalar_t>(keep_self),
                                   alpha.data_ptr<scalar_t>(), alpha_self.data_ptr<scalar_t>(),
                                   out.data_ptr<scalar_t>());
      });
    });
    if (x.requires_grad() || a_src.requires_grad() || a_dst.requires_grad()) {
      const TransposedCsr& t = graph.transposed();
      ctx->save_for_backward({x, a_src, a_dst, out});
      auto& d = ctx->saved_data;
      d["indptr"] = graph.indptr();
      d["indices"] = graph.indices();
      d["t_indptr"] = t.t_indptr;
      d["t_dst"] = t.t_dst;
      d["t_edge"] = t.t_edge;
      d["alpha"] = alpha;
      d["alpha_self"] = alpha_self;
      d["keep"] = keep;
      d["keep_self"] = keep_self;
      d["slope"] = negative_slope;
      d["self_loops"] = self_loops;
    }
    return out;
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const torch::Tensor &x = saved[0], &a_src = saved[1], &a_dst = saved[2], &out = saved[3];
    const torch::Tensor grad_out = grads[0].contiguous();
    auto& d = ctx->saved_data;
    const torch::Tensor indptr = d["indptr"].toTensor(), indices = d["indices"].toTensor();
    const torch::Tensor alpha = d["alpha"].toTensor(), alpha_self = d["alpha_self"].toTensor();
    const torch::Tensor keep = saved_or_undefined(d["keep"]), keep_self = saved_or_undefined(d["keep_self"]);
    const bool self_loops = d["self_loops"].toBool();
    const std::int64_t nd = a_dst.size(0), ns = x.size(0), heads = x.size(1), width = x.size(2);
    auto ds = torch::empty_like(alpha);
    auto ds_self = torch::empty_like(alpha_self);
    auto grad_a_dst = torch::empty_like(a_dst);
    auto grad_a_src = torch::empty_like(a_src);
    torch::Tensor grad_x = ctx->needs_input_grad(0) ? torch::empty_like(x) : torch::Tensor();
    AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "loom_gat_backward", [&] {
      const GatShape<scalar_t> shape{nd, heads, width, static_cast<scalar_t>(d["slope"].toDouble()), self_loops};
      visit_index_type(indices, [&](auto id_type) {
        using IdT = decltype(id_type);
        gat_backward_rows<scalar_t, IdT>(
            shape, indptr.data_ptr<std::int64_t>(), indices.data_ptr<IdT>(), x.data_ptr<scalar_t>(),
            a_src.data_ptr<scalar_t>(), a_dst.data_ptr<scalar_t>(), alpha.data_ptr<scalar_t>(),
            alpha_self.data_ptr<scalar_t>(), ptr_or_null<scalar_t>(keep), ptr_or_null<scalar_t>(keep_self),
            out.data_ptr<scalar_t>(), grad_out.data_ptr<scalar_t>(), ds.data_ptr<scalar_t>(),
            ds_self.data_ptr<scalar_t>(), grad_a_dst.data_ptr<scalar_t>());
        gat_backward_cols<scalar_t, IdT>(
            shape, ns, d["t_indptr"].toTensor().data_ptr<std::int64_t>(), d["t_dst"].toTensor().data_ptr<IdT>(),
            d["t_edge"].toTensor().data_ptr<std::int64_t>(), alpha.data_ptr<scalar_t>(),
            alpha_self.data_ptr<scalar_t>(), ptr_or_null<scalar_t>(keep), ptr_or_null<scalar_t>(keep_self),
            ds.data_ptr<scalar_t>(), ds_self.data_ptr<scalar_t>(), grad_out.data_ptr<scalar_t>(),
            grad_x.defined() ? grad_x.data_ptr<scalar_t>() : nullptr, grad_a_src.data_ptr<scalar_t>());
      });
    });
    return {grad_x, grad_a_src, grad_a_dst, torch::Tensor(), torch::Tensor(), torch::Tensor(), torch::Tensor()};
  }
};

torch::Tensor gat_aggregate_generic(const MessageGraph& graph, const torch::Tensor& x, const torch::Tensor& a_src,
                                    const torch::Tensor& a_dst, double negative_slope, bool self_loops,
                                    const torch::Tensor& keep, const torch::Tensor& keep_self) {
  const std::int64_t nd = graph.num_dst(), heads = x.size(1);
  torch::Tensor src = graph.indices().to(torch::kLong);
  torch::Tensor dst = graph.edge_dst();
  if (self_loops) {
    const auto loops = torch::arange(nd, src.options());
    src = torch::cat({src, loops});
    dst = torch::cat({dst, loops});
  }
  const auto z = torch::leaky_relu(a_src.index_select(0, src) + a_dst.index_select(0, dst), negative_slope);
  const auto dst_h = dst.unsqueeze(1).expand({dst.size(0), heads});
  const auto m = torch::full({nd, heads}, -std::numeric_limits<double>::infinity(), z.options())
                     .scatter_reduce(0, dst_h, z.detach(), "amax", /*include_self=*/true);
  const auto ex = torch::exp(z - m.index_select(0, dst));
  const auto denom = torch::zeros({nd, heads}, z.options()).index_add(0, dst, ex);
  auto alpha = ex / denom.index_select(0, dst);
  if (keep.defined()) alpha = alpha * (self_loops ? torch::cat({keep, keep_self}) : keep);
  return torch::zeros({nd, heads, x.size(2)}, x.options())
      .index_add(0, dst, alpha.unsqueeze(-1) * x.index_select(0, src));
}

}  // namespace detail

torch::Tensor gat_aggregate(const MessageGraph& graph, const torch::Tensor& x, const torch::Tensor& a_src,
                            const torch::Tensor& a_dst, double negative_slope, bool self_loops,
                            double attention_dropout, bool training) {
  LOOM_CHECK_ARG(x.dim() == 3 && x.size(0) == graph.num_src(), "x", "want [{} sources, heads, features], got {}",
                 graph.num_src(), detail::shape_string(x));
  const std::int64_t heads = x.size(1);
  LOOM_CHECK_ARG(a_src.dim() == 2 && a_src.size(0) == graph.num_src() && a_src.size(1) == heads, "a_src",
                 "want [{}, {}], got {}", graph.num_src(), heads, detail::shape_string(a_src));
  LOOM_CHECK_ARG(a_dst.dim() == 2 && a_dst.size(0) == graph.num_dst() && a_dst.size(1) == heads, "a_dst",
                 "want [{}, {}], got {}", graph.num_dst(), heads, detail::shape_string(a_dst));
  LOOM_CHECK_ARG(x.scalar_type() == torch::kFloat || x.scalar_type() == torch::kDouble, "x",
                 "want float32 or float64 features");
  LOOM_CHECK_ARG(a_src.scalar_type() == x.scalar_type() && a_dst.scalar_type() == x.scalar_type(), "a_src",
                 "attention scores must have the features' dtype");
  LOOM_CHECK_ARG(x.device() == graph.device() && a_src.device() == x.device() && a_dst.device() == x.device(), "x",
                 "features, scores and graph must be on one device");
  LOOM_CHECK_ARG(attention_dropout >= 0 && attention_dropout < 1, "attention_dropout", "must be in [0, 1), got {}",
                 attention_dropout);
  torch::Tensor keep, keep_self;
  if (training && attention_dropout > 0) {
    const double kept = 1.0 - attention_dropout;
    const auto scales = [&](std::int64_t rows) {
      return torch::empty({rows, heads}, x.options()).bernoulli_(kept).div_(kept);
    };
    keep = scales(graph.num_edges());
    keep_self = scales(self_loops ? graph.num_dst() : 0);
  }
  if (!x.is_cpu())
    return detail::gat_aggregate_generic(graph, x, a_src, a_dst, negative_slope, self_loops, keep, keep_self);
  return detail::GatFunction::apply(x.contiguous(), a_src.contiguous(), a_dst.contiguous(), graph, negative_slope,
                                    self_loops, detail::AttentionKeep{keep, keep_self});
}

}  // namespace loom::nn
