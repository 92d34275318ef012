// alltoallv and all-reduce throughput of comm::Communicator (run under mpirun, e.g.
// `mpirun -np 4 --oversubscribe --bind-to none build/bench_comm`). For each size, every rank
// sends `bytes` to every peer (alltoallv) or all-reduces `bytes` of floats, `reps` times; rank 0
// prints the slowest rank's time per call and the payload rate per rank (counted bytes sent).
// Optional arguments: --net-bandwidth B --net-latency L --net-host-bandwidth H --net-host-latency T to see link
// emulation at work; --sizes 1048576,16777216 to time only those bytes per peer.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "loom/comm/mpi_session.hpp"
#include "loom/core/timer.hpp"

using loom::comm::Channel;
using loom::comm::Communicator;

namespace {

template <class F>
double slowest_seconds(Communicator& world, int reps, F&& call) {
  world.barrier();
  loom::core::Timer timer;
  for (int i = 0; i < reps; ++i) call();
  return world.allreduce_max(timer.seconds(), Channel::control) / reps;
}

// "1048576,16777216" -> the sizes; the program's own argument, not a user-facing parser.
std::vector<std::size_t> parse_sizes(const std::string& text) {
  std::vector<std::size_t> sizes;
  std::size_t begin = 0;
  while (begin <= text.size()) {
    const std::size_t end = std::min(text.find(',', begin), text.size());
    sizes.push_back(std::stoull(text.substr(begin, end - begin)));
    begin = end + 1;
  }
  return sizes;
}

}  // namespace

int main(int argc, char** argv) {
  std::string bandwidth, latency, host_bandwidth, host_latency;
  std::vector<std::size_t> sizes;
  for (std::size_t bytes = 1024; bytes <= (std::size_t{16} << 20); bytes *= 8) sizes.push_back(bytes);
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--net-bandwidth")
      bandwidth = argv[i + 1];
    else if (flag == "--net-latency")
      latency = argv[i + 1];
    else if (flag == "--net-host-bandwidth")
      host_bandwidth = argv[i + 1];
    else if (flag == "--net-host-latency")
      host_latency = argv[i + 1];
    else if (flag == "--sizes")
      sizes = parse_sizes(argv[i + 1]);
  }
  return loom::comm::run_job([&](Communicator& world) {
    world.set_link_model(loom::comm::parse_link_model(bandwidth, latency, host_bandwidth, host_latency));
    const int p = world.size();
    if (world.rank() == 0) {
      std::printf("ranks %d, link %s %s\n%-10s %12s %14s %12s %14s\n", p,
                  bandwidth.empty() ? "unlimited" : bandwidth.c_str(), latency.empty() ? "0" : latency.c_str(),
                  "bytes/peer", "a2av us", "a2av MB/s/rank", "allreduce us", "allreduce MB/s");
    }
    for (const std::size_t bytes : sizes) {
      const int reps = bytes >= (std::size_t{1} << 20) ? 5 : 50;
      std::vector<std::vector<float>> send(p, std::vector<float>(bytes / sizeof(float), 1.0f));
      world.reset_stats();
      const double a2a = slowest_seconds(world, reps, [&] { world.alltoallv(send, Channel::features); });
      const double sent = static_cast<double>(world.stats()[Channel::features].bytes_sent) / reps;
      std::vector<float> grads(bytes / sizeof(float), 1.0f);
      const double ar = slowest_seconds(world, reps, [&] { world.allreduce_sum(grads, Channel::gradients); });
      if (world.rank() == 0) {
        std::printf("%-10zu %12.1f %14.1f %12.1f %14.1f\n", bytes, a2a * 1e6, sent / a2a / 1e6, ar * 1e6,
                    static_cast<double>(bytes) / ar / 1e6);
      }
    }
    return 0;
  });
}
