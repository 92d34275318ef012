// A cluster profile (configs/clusters/*.toml): what one host of a cluster can do, the numbers
// `loom plan` turns counted work into seconds with. Every host of the cluster is alike.
//
//   name = "g5.8xlarge"                 # free text
//   sources = "https://...; ..."        # where each number comes from (free text)
//   [host]
//   cores = 32                          # cores a rank runs on (0.5: half of one)
//   memory = "128G"                     # what a host may use
//   sampled_edges_per_core_second = 2e7 # neighbour sampling, per core
//   gathered_bytes_per_core_second = 2e9  # copying feature rows by id, per core
//   [compute]                           # a training step on the host's cores (without a GPU), per core:
//   flops = 3e10                        # dense layers' flop/s (forward + backward)
//   values = 2e9                        # aggregation: values moved along edges per second
//   step_overhead = "1ms"               # per step, whatever its size (not per core)
//   [network]                           # comm::LinkModel: see comm/link_model.hpp
//   bandwidth = "25Gbit"   latency = "30us"   host_bandwidth = "1.4GB/s"   host_latency = "2.8ms"
//   [gpu]                               # optional: the step runs there when present
//   name = "A10G"  per_host = 1  memory = "24G"  copy_bandwidth = "25GB/s"
//   flops = 1.2e13  values = 5e10  step_overhead = "4ms"   (the whole GPU's rates)
//
// Every key of a section is required (sources and the [gpu] section are optional); an unknown
// key, a missing one, a value of the wrong kind or out of range is an Error naming the file, the
// line and the key. write_profile() writes a file read_profile() reads back to the same values.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "loom/comm/link_model.hpp"

namespace loom::plan {

// What a training step's work costs (step_costs.hpp): seconds = step_overhead + flops / flops rate
// + aggregated values / values rate.
struct ComputeRates {
  double flops = 0;          // per second
  double values = 0;         // per second
  double step_overhead = 0;  // seconds per step beyond its work (launches, synchronisation, Python-free glue)
};

struct GpuProfile {
  std::string name;  // "" = no GPU: the step runs on the host's cores
  int per_host = 0;
  std::int64_t memory_bytes = 0;
  double copy_bandwidth = 0;  // host to device, bytes per second (pinned)
  ComputeRates compute;       // the whole GPU's
  bool present() const { return !name.empty(); }
};

struct ClusterProfile {
  std::string name;
  std::string sources;
  double cores = 0;  // cores a rank may run on (a share of one, where ranks share a host's cores)
  std::int64_t memory_bytes = 0;
  double sampled_edges_per_core_second = 0;
  double gathered_bytes_per_core_second = 0;
  ComputeRates cpu;  // per core (the step overhead: per step)
  comm::LinkModel network;
  GpuProfile gpu;
};

ClusterProfile read_profile(const std::string& path);
void write_profile(const ClusterProfile& profile, const std::string& path);

}  // namespace loom::plan
