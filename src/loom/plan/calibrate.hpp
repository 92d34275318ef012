// `loom plan calibrate`: this host's entries of a cluster profile, measured with short runs on a
// generated R-MAT graph (each measurement's time is reported):
//   sampling  NeighborSampler batches of random seeds with the given fanouts, all cores: sampled
//             edges per second per core
//   gather    copying random feature rows (float32) by id into a batch, all cores: bytes per second
//             per core
//   compute   forward, backward and Adam step of the given model on those batches for each hidden
//             width: the least-squares line seconds = step_overhead + flops / flops_rate over the
//             widths (flops as step_costs.hpp counts them)
//   cores and memory: the threads Loom uses and the memory available now.
// The network is not measured here (one host has no peer): its entries are the options given,
// defaulting to the host costs bench/bench_netcluster.sh measured over TCP between namespaces.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "loom/plan/cluster_profile.hpp"
#include "loom/sample/fanouts.hpp"

namespace loom::plan {

struct CalibrateOptions {
  std::string name = "this host";
  int scale = 18;  // the R-MAT graph's log2 nodes
  std::int64_t feat_dim = 128;
  sample::Fanouts fanouts{15, 10, 5};
  std::int64_t batch_size = 1024;
  std::vector<std::int64_t> hidden{64, 256};
  int steps = 4;  // measured steps per width (after one warm-up)
  comm::LinkModel network;
  std::uint64_t seed = 0;
};

// `report` receives one line per measurement.
ClusterProfile calibrate(const CalibrateOptions& options, const std::function<void(const std::string&)>& report);

}  // namespace loom::plan
