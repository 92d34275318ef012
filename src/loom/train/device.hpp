// Devices of the trainers (`--device cpu|cuda|cuda:N`): resolve_device() turns the option into a
// torch::Device; synchronize() waits for the device's queued work (for timings).
#pragma once

#include <string>

#include <torch/types.h>

namespace loom::train {

// "cpu", "cuda" (GPU rank % device count) or "cuda:N". Throws Error naming --device when the
// name is unknown or CUDA is asked for where this LibTorch has no CUDA or sees no GPU.
torch::Device resolve_device(const std::string& name, int rank);

// Blocks until the device has finished its queued work (nothing to do on CPU).
void synchronize(torch::Device device);

}  // namespace loom::train
