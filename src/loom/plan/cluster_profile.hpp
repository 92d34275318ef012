// A cluster profile (configs/clusters/*.toml): what one host of a cluster can do, the numbers
// `loom plan` turns counted work into seconds with. Every host of the cluster is alike.
//
//   name = "g5.8xlarge"                 # free text
//   sources = ["https://...", "..."]    # where each number comes from (no commas inside)
//   [host]
//   cores = 32                          # cores a rank runs on (0.5: half of one)
//   memory = "128G"                     # what a host may use
//   sampled_edges_per_core_second = 2e7 # neighbour sampling, per core
//   gathered_bytes_per_core_second = 2e9  # copying feature rows by id, per core
//   [compute]                           # a training step on the host's cores (all of them)
//   flops = 6e10                        # flop/s a step reaches (forward + backward)
//   step_overhead = "1ms"               # per step, whatever its size
//   [network]                           # comm::LinkModel: see comm/link_model.hpp
//   bandwidth = "25Gbit"   latency = "30us"   host_bandwidth = "1.4GB/s"   host_latency = "2.8ms"
//   [gpu]                               # optional: the step runs there when present
//   name = "A10G"  per_host = 1  memory = "24G"  copy_bandwidth = "25GB/s"
//   flops = 1.2e13  step_overhead = "4ms"
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

struct GpuProfile {
  std::string name;  // "" = no GPU: the step runs on the host's cores
  int per_host = 0;
  std::int64_t memory_bytes = 0;
  double copy_bandwidth = 0;  // host to device, bytes per second (pinned)
  double flops = 0;           // flop/s a training step reaches
  double step_overhead = 0;   // seconds per step beyond its flops (launches, synchronisation)
  bool present() const { return !name.empty(); }
};

struct ClusterProfile {
  std::string name;
  std::vector<std::string> sources;
  double cores = 0;  // cores a rank may run on (a share of one, where ranks share a host's cores)
  std::int64_t memory_bytes = 0;
  double sampled_edges_per_core_second = 0;
  double gathered_bytes_per_core_second = 0;
  double cpu_flops = 0;
  double cpu_step_overhead = 0;
  comm::LinkModel network;
  GpuProfile gpu;
};

ClusterProfile read_profile(const std::string& path);
void write_profile(const ClusterProfile& profile, const std::string& path);

}  // namespace loom::plan
