#include "loom/nn/relu_dropout.hpp"

#include <cstring>
#include <mutex>

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Parallel.h>
#include <torch/autograd.h>
#include <torch/torch.h>

#include "loom/core/error.hpp"
#include "loom/core/rng.hpp"

namespace loom::nn {

namespace {

constexpr std::int64_t kBlock = 4096;  // elements per random stream; a multiple of 4

std::uint64_t draw_seed() {
  auto gen = at::detail::getDefaultCPUGenerator();
  std::lock_guard<std::mutex> lock(gen.mutex());
  return gen.get<at::CPUGeneratorImpl>()->random64();
}

template <bool Relu, class T>
void dropout_kernel(const T* x, std::int64_t n, std::uint64_t seed, std::uint32_t keep_below, T scale, T* out,
                    std::uint8_t* pass) {
  const core::Rng root(seed);
  at::parallel_for(0, (n + kBlock - 1) / kBlock, 1, [&](std::int64_t begin, std::int64_t end) {
    std::uint16_t draws[kBlock];
    for (std::int64_t b = begin; b < end; ++b) {
      core::Rng rng = root.split(static_cast<std::uint64_t>(b));
      for (std::int64_t k = 0; k < kBlock; k += 4) {
        const std::uint64_t r = rng.next();
        std::memcpy(draws + k, &r, sizeof r);
      }
      // Branch-free so that it vectorises: the keep draw and relu are both data-random.
      // Without relu, the sign of x does not matter (gradients pass wherever the draw keeps).
      const std::int64_t lo = b * kBlock, len = std::min(n - lo, kBlock);
      const T* __restrict__ xb = x + lo;
      T* __restrict__ ob = out + lo;
      std::uint8_t* __restrict__ pb = pass + lo;
      for (std::int64_t k = 0; k < len; ++k) {
        const bool keep = (draws[k] < keep_below) & (!Relu || xb[k] > T(0));
        pb[k] = keep;
        ob[k] = keep ? xb[k] * scale : T(0);
      }
    }
  });
}

template <class T>
void masked_scale_kernel(const T* grad, const std::uint8_t* pass, std::int64_t n, T scale, T* out) {
  at::parallel_for(0, n, 1 << 16, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t k = begin; k < end; ++k) out[k] = pass[k] ? grad[k] * scale : T(0);
  });
}

class DropoutFunction : public torch::autograd::Function<DropoutFunction> {
 public:
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& x, double p, bool relu) {
    const std::int64_t n = x.numel();
    auto out = torch::empty_like(x);
    auto pass = torch::empty(x.sizes(), x.options().dtype(torch::kByte));
    const auto keep_below = static_cast<std::uint32_t>(std::llround((1.0 - p) * 65536.0));
    const std::uint64_t seed = draw_seed();
    AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "loom_dropout", [&] {
      const auto scale = static_cast<scalar_t>(1.0 / (1.0 - p));
      if (relu)
        dropout_kernel<true>(x.data_ptr<scalar_t>(), n, seed, keep_below, scale, out.data_ptr<scalar_t>(),
                             pass.data_ptr<std::uint8_t>());
      else
        dropout_kernel<false>(x.data_ptr<scalar_t>(), n, seed, keep_below, scale, out.data_ptr<scalar_t>(),
                              pass.data_ptr<std::uint8_t>());
    });
    ctx->saved_data["pass"] = pass;
    ctx->saved_data["scale"] = 1.0 / (1.0 - p);
    return out;
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    const torch::Tensor grad = grads[0].contiguous();
    const torch::Tensor pass = ctx->saved_data["pass"].toTensor();
    auto out = torch::empty_like(grad);
    AT_DISPATCH_FLOATING_TYPES(grad.scalar_type(), "loom_relu_dropout_backward", [&] {
      masked_scale_kernel<scalar_t>(grad.data_ptr<scalar_t>(), pass.data_ptr<std::uint8_t>(), grad.numel(),
                                    static_cast<scalar_t>(ctx->saved_data["scale"].toDouble()),
                                    out.data_ptr<scalar_t>());
    });
    return {out, torch::Tensor(), torch::Tensor()};
  }
};

torch::Tensor apply_dropout(const torch::Tensor& x, double p, bool training, bool relu) {
  LOOM_CHECK_ARG(p >= 0.0 && p < 1.0, "dropout", "must be in [0, 1), got {}", p);
  if (!training || p == 0.0) return relu ? torch::relu(x) : x;
  if (!x.is_cpu() || !(x.scalar_type() == torch::kFloat || x.scalar_type() == torch::kDouble)) {
    return torch::dropout(relu ? torch::relu(x) : x, p, /*train=*/true);
  }
  return DropoutFunction::apply(x.contiguous(), p, relu);
}

}  // namespace

torch::Tensor relu_dropout(const torch::Tensor& x, double p, bool training) {
  return apply_dropout(x, p, training, /*relu=*/true);
}

torch::Tensor dropout(const torch::Tensor& x, double p, bool training) {
  return apply_dropout(x, p, training, /*relu=*/false);
}

}  // namespace loom::nn
