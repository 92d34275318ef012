#include "loom/nn/device.hpp"

#include <algorithm>

#include <torch/cuda.h>

#if LOOM_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

#include "loom/core/error.hpp"
#include "loom/nn/quiet_warnings.hpp"

namespace loom::nn {

std::string DeviceChoice::name() const {
  switch (kind) {
    case Kind::kCpu: return "cpu";
    case Kind::kCudaByRank: return "cuda";
    case Kind::kCudaIndex: break;
  }
  return "cuda:" + std::to_string(index);
}

DeviceChoice parse_device_choice(const std::string& text, const std::string& argument) {
  if (text == "cpu") return {};                                  // input text: the --device parser
  if (text == "cuda") return {DeviceChoice::Kind::kCudaByRank};  // input text: the --device parser
  int index = -1;
  if (text.starts_with("cuda:")) {
    try {
      std::size_t used = 0;
      index = std::stoi(text.substr(5), &used);
      if (used != text.size() - 5) index = -1;
    } catch (const std::exception&) {
      index = -1;
    }
  }
  LOOM_CHECK_ARG(index >= 0, argument, "must be cpu, cuda or cuda:N, got '{}'", text);
  return {DeviceChoice::Kind::kCudaIndex, index};
}

torch::Device resolve_device(const DeviceChoice& choice, int rank) {
  if (choice.is_cpu()) return torch::kCPU;
  const auto count = static_cast<int>(torch::cuda::device_count());
  LOOM_CHECK_ARG(torch::cuda::is_available() && count > 0, "--device",
                 "'{}' asked for, but this LibTorch build has no CUDA support or sees no GPU "
                 "(torch::cuda::device_count() = {}); use --device cpu or a CUDA LibTorch",
                 choice.name(), count);
  const int index = choice.kind == DeviceChoice::Kind::kCudaByRank ? rank % count : choice.index;
  LOOM_CHECK_ARG(index < count, "--device", "'{}': no such GPU ({} visible)", choice.name(), count);
  return torch::Device(torch::kCUDA, static_cast<torch::DeviceIndex>(index));
}

namespace {

template <class T>
torch::Tensor vector_on(std::span<const T> values, torch::ScalarType type, torch::Device device) {
  auto host = torch::empty({static_cast<std::int64_t>(values.size())},
                           torch::TensorOptions().dtype(type).pinned_memory(device.is_cuda()));
  std::copy(values.begin(), values.end(), host.data_ptr<T>());
  return device.is_cpu() ? host : host.to(device, /*non_blocking=*/true);
}

}  // namespace

torch::Tensor vector_on(std::span<const std::int64_t> values, torch::Device device) {
  return vector_on(values, torch::kInt64, device);
}

torch::Tensor vector_on(std::span<const float> values, torch::Device device) {
  return vector_on(values, torch::kFloat32, device);
}

torch::Tensor mapped_view(const torch::Tensor& pinned, torch::Device device) {
  if (device.is_cpu()) return pinned;
#if LOOM_WITH_CUDA
  LOOM_CHECK(pinned.is_pinned(), "rows read in place by {} must be in pinned host memory", device.str());
  // The address the device reads the pinned memory at (the host's own under unified addressing).
  cudaPointerAttributes attributes{};
  const cudaError_t rc = cudaPointerGetAttributes(&attributes, pinned.data_ptr());
  if (rc != cudaSuccess) cudaGetLastError();  // leave no error behind for LibTorch's next launch check
  LOOM_CHECK(rc == cudaSuccess && attributes.devicePointer != nullptr,
             "pinned host rows cannot be read in place by {}: {}; use --host-reads staged", device.str(),
             rc == cudaSuccess ? "no device address" : cudaGetErrorString(rc));
  return at::for_blob(attributes.devicePointer, pinned.sizes())
      .strides(pinned.strides())
      .deleter([keep = pinned](void*) mutable { keep.reset(); })
      .options(torch::TensorOptions().dtype(pinned.dtype()).device(device))
      .target_device(device)
      .make_tensor();
#else
  throw Error(fmt::format("{}: reading host rows in place needs Loom built against a CUDA LibTorch", device.str()));
#endif
}

void synchronize(torch::Device device) {
  if (device.is_cuda()) torch::cuda::synchronize(device.index());
}

std::optional<DeviceMemory> device_memory(torch::Device device) {
  if (!device.is_cuda()) return std::nullopt;
#if LOOM_WITH_CUDA
  int previous = 0;
  if (cudaGetDevice(&previous) != cudaSuccess) return std::nullopt;
  std::size_t free_bytes = 0, total_bytes = 0;
  const bool ok = cudaSetDevice(device.index() < 0 ? previous : device.index()) == cudaSuccess &&
                  cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess;
  cudaSetDevice(previous);
  if (!ok) return std::nullopt;
  return DeviceMemory{static_cast<std::int64_t>(free_bytes), static_cast<std::int64_t>(total_bytes)};
#else
  return std::nullopt;
#endif
}

torch::Tensor to_host(const torch::Tensor& t, const comm::Communicator& counter) {
  if (!t.defined() || t.is_cpu()) return t;
  counter.count_device(static_cast<std::uint64_t>(t.numel() * t.element_size()), /*to_device=*/false);
  return t.to(torch::kCPU);
}

std::vector<torch::Tensor> storage_parts(const torch::Tensor& t) {
  if (t.defined() && t.layout() == torch::kSparseCsr) return {t.crow_indices(), t.col_indices(), t.values()};
  return {t};
}

torch::Tensor with_parts_moved(const torch::Tensor& t, const std::function<torch::Tensor(const torch::Tensor&)>& move) {
  if (!t.defined() || t.layout() != torch::kSparseCsr) return move(t);
  const torch::Tensor values = move(t.values());
  const QuietWarnings quiet;
  return at::_sparse_csr_tensor_unsafe(move(t.crow_indices()), move(t.col_indices()), values, t.sizes(),
                                       values.options().layout(torch::kSparseCsr));
}

torch::Tensor to_device(const torch::Tensor& t, torch::Device device, const comm::Communicator& counter) {
  if (!t.defined() || t.device() == device) return t;
  if (t.layout() == torch::kSparseCsr)
    return with_parts_moved(t, [&](const torch::Tensor& part) { return to_device(part, device, counter); });
  if (!device.is_cpu())
    counter.count_device(static_cast<std::uint64_t>(t.numel() * t.element_size()), /*to_device=*/true);
  return t.to(device, /*non_blocking=*/t.is_pinned());
}

int ranks_per_device(torch::Device device, int ranks_on_node) {
  if (!device.is_cuda()) return 1;
  const int gpus = std::max(1, static_cast<int>(torch::cuda::device_count()));
  return std::max(1, (ranks_on_node + gpus - 1) / gpus);
}

}  // namespace loom::nn
