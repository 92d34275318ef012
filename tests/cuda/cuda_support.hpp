// Shared by the `cuda` tests: skip (with the reason) where no GPU can run them, and the relative
// difference that compares a GPU result with the CPU's.
#pragma once

#include <gtest/gtest.h>
#include <torch/cuda.h>
#include <torch/torch.h>

#define LOOM_REQUIRE_GPU()                                                                                  \
  do {                                                                                                      \
    if (!torch::cuda::is_available())                                                                       \
      GTEST_SKIP() << "no GPU: this LibTorch has no CUDA or sees no device (scripts/device-check runs it)"; \
  } while (0)

namespace loom::testing {

// ||a - b|| / ||b|| in float64, on the CPU.
inline double relative_difference(const torch::Tensor& a, const torch::Tensor& b) {
  const auto x = a.detach().to(torch::kCPU, torch::kDouble), y = b.detach().to(torch::kCPU, torch::kDouble);
  return (x - y).norm().item<double>() / std::max(1e-30, y.norm().item<double>());
}

}  // namespace loom::testing
