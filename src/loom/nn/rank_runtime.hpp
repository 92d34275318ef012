// What one rank computes with, settled once at its start for every trainer and the Python Loader:
// open_rank() runs the caller's option check (one error on every rank, naming the option), gives
// this rank its share of the machine's cores (runtime.hpp), turns on link emulation and resolves
// the device (device.hpp). Collective over `world`.
#pragma once

#include <functional>

#include <torch/types.h>

#include "loom/comm/communicator.hpp"
#include "loom/comm/link_model.hpp"
#include "loom/nn/device.hpp"

namespace loom::nn {

struct RankOptions {
  int threads = 0;       // CPU threads of this rank (0 = the cores shared among the ranks on this machine)
  DeviceChoice device;   // cpu | cuda (GPU rank % count) | cuda:N
  comm::LinkModel link;  // link emulation (off by default)
};

struct RankRuntime {
  int threads = 0;  // CPU threads of this rank
  torch::Device device = torch::kCPU;
};

RankRuntime open_rank(const RankOptions& options, comm::Communicator& world, const std::function<void()>& check);

}  // namespace loom::nn
