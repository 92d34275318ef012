// The memory one host needs for a regime of `loom train` (one rank per host), as the memory
// plan (train/memory_plan.hpp) names its parts: the topology (replicated on every host), the
// feature rows it holds (all of them, or its part's), the static cache or prefetch buffer, the
// model with its gradients and Adam's two moments (16 bytes a parameter), the batches in flight
// (pipeline depth + 1 of the largest step's input rows as float32), the activations (each
// layer's source rows x width x 4 bytes, three times: forward, gradient, kept for backward), and
// the runtime (LibTorch and MPI: 470 MB, the memory plan's measured "runtime" part). On a GPU the
// model, one batch and the activations are on the device.
#pragma once

#include <cstdint>

#include <nlohmann/json.hpp>

namespace loom::plan {

struct HostMemory {
  std::int64_t topology = 0, features = 0, held = 0, model = 0, batches = 0, activations = 0, runtime = 0;
  std::int64_t device = 0;  // on the GPU (0 without one)
  std::int64_t host_total() const { return topology + features + held + model + batches + activations + runtime; }
  nlohmann::json to_json() const;
};

inline constexpr std::int64_t kRuntimeBytes = 470'000'000;

}  // namespace loom::plan
