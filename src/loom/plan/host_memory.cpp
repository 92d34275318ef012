#include "loom/plan/host_memory.hpp"

namespace loom::plan {

nlohmann::json HostMemory::to_json() const {
  return {{"topology", topology}, {"features", features},       {"cache_or_buffer", held},
          {"model", model},       {"batches", batches},         {"activations", activations},
          {"runtime", runtime},   {"host_total", host_total()}, {"device", device}};
}

}  // namespace loom::plan
