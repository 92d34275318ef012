// Devices of the trainers (`--device cpu|cuda|cuda:N`): resolve_device() turns the option into a
// torch::Device; synchronize() waits for the device's queued work (for timings); device_memory()
// reads a GPU's free and total memory where Loom is built against a CUDA LibTorch; to_host() and
// to_device() copy a tensor across and count the bytes on Channel::device; vector_on() puts a host
// vector on the device without blocking; mapped_view() lets the device read pinned host memory in
// place.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <torch/types.h>

#include "loom/comm/communicator.hpp"

namespace loom::nn {

// The --device option, parsed once at the boundary: the CPU, a GPU picked by rank (rank % the
// GPU count), or GPU `index`.
struct DeviceChoice {
  enum class Kind { kCpu, kCudaByRank, kCudaIndex };
  Kind kind = Kind::kCpu;
  int index = -1;  // kCudaIndex only
  bool is_cpu() const { return kind == Kind::kCpu; }
  std::string name() const;  // "cpu", "cuda" or "cuda:N"
};
// "cpu", "cuda" or "cuda:N"; throws Error naming `argument` otherwise.
DeviceChoice parse_device_choice(const std::string& text, const std::string& argument = "--device");

// The torch::Device of `choice` for `rank`. Throws Error naming --device where CUDA is asked for
// but this LibTorch has no CUDA or sees no GPU, or GPU N does not exist.
torch::Device resolve_device(const DeviceChoice& choice, int rank);

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
// A sparse CSR tensor travels as its three arrays.
torch::Tensor to_device(const torch::Tensor& t, torch::Device device, const comm::Communicator& counter);

// What holds a tensor's memory: a sparse CSR tensor's three arrays (row offsets, columns,
// values), any other tensor itself.
std::vector<torch::Tensor> storage_parts(const torch::Tensor& t);
// `t` with each storage part replaced by move(part) (a sparse CSR tensor rebuilt around them).
torch::Tensor with_parts_moved(const torch::Tensor& t, const std::function<torch::Tensor(const torch::Tensor&)>& move);

// `values` as a tensor on `device`: under CUDA through pinned memory, copied without blocking the
// host (a copy from pageable memory waits for the stream's queued work first).
torch::Tensor vector_on(std::span<const std::int64_t> values, torch::Device device);
torch::Tensor vector_on(std::span<const float> values, torch::Device device);

// A tensor on `device` whose kernels read `pinned` (a host tensor in pinned memory) in place, over
// the bus, with no copy (unified addressing: DGL's UVA); it keeps `pinned` alive. On the CPU,
// `pinned` itself. Throws Error where the memory cannot be mapped or Loom has no CUDA.
torch::Tensor mapped_view(const torch::Tensor& pinned, torch::Device device);

// How many of this machine's ranks compute on the same GPU as this one (`--device cuda` gives rank
// r GPU r % count; ranks that name cuda:N share N): at least 1.
int ranks_per_device(torch::Device device, int ranks_on_node);

}  // namespace loom::nn
