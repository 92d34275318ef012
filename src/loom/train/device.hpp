// Devices of the trainers (`--device cpu|cuda|cuda:N`): resolve_device() turns the option into a
// torch::Device; synchronize() waits for the device's queued work (for timings); device_memory()
// reads a GPU's free and total memory where Loom is built against a CUDA LibTorch; to_host() and
// to_device() copy a tensor across and count the bytes on Channel::device.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <torch/types.h>

#include "loom/comm/communicator.hpp"

namespace loom::train {

// "cpu", "cuda" (GPU rank % device count) or "cuda:N". Throws Error naming --device when the
// name is unknown or CUDA is asked for where this LibTorch has no CUDA or sees no GPU.
torch::Device resolve_device(const std::string& name, int rank);

// Blocks until the device has finished its queued work (nothing to do on CPU).
void synchronize(torch::Device device);

struct DeviceMemory {
  std::int64_t free_bytes = 0, total_bytes = 0;
};
// A CUDA device's memory now (cudaMemGetInfo); nullopt for the CPU, or where unknown.
std::optional<DeviceMemory> device_memory(torch::Device device);

// `t` in host memory (itself when it is there), the copy counted on `counter`'s Channel::device.
torch::Tensor to_host(const torch::Tensor& t, const comm::Communicator& counter);
// `t` on `device` (itself when it is there; non-blocking from pinned memory), counted likewise.
torch::Tensor to_device(const torch::Tensor& t, torch::Device device, const comm::Communicator& counter);

// How many of this machine's ranks compute on the same GPU as this one (`--device cuda` gives rank
// r GPU r % count; ranks that name cuda:N share N): at least 1.
int ranks_per_device(torch::Device device, int ranks_on_node);

}  // namespace loom::train
