#include "loom/train/device.hpp"

#include <torch/cuda.h>

#include "loom/core/error.hpp"

namespace loom::train {

torch::Device resolve_device(const std::string& name, int rank) {
  if (name == "cpu") return torch::kCPU;
  LOOM_CHECK_ARG(name == "cuda" || name.starts_with("cuda:"), "--device", "must be cpu, cuda or cuda:N, got '{}'",
                 name);
  const auto count = static_cast<int>(torch::cuda::device_count());
  LOOM_CHECK_ARG(torch::cuda::is_available() && count > 0, "--device",
                 "'{}' asked for, but this LibTorch build has no CUDA support or sees no GPU "
                 "(torch::cuda::device_count() = {}); use --device cpu or a CUDA LibTorch",
                 name, count);
  if (name == "cuda") return torch::Device(torch::kCUDA, static_cast<torch::DeviceIndex>(rank % count));
  int index = -1;
  try {
    std::size_t used = 0;
    index = std::stoi(name.substr(5), &used);
    if (used != name.size() - 5) index = -1;
  } catch (const std::exception&) {
    index = -1;
  }
  LOOM_CHECK_ARG(index >= 0 && index < count, "--device", "'{}': no such GPU ({} visible)", name, count);
  return torch::Device(torch::kCUDA, static_cast<torch::DeviceIndex>(index));
}

void synchronize(torch::Device device) {
  if (device.is_cuda()) torch::cuda::synchronize(device.index());
}

}  // namespace loom::train
