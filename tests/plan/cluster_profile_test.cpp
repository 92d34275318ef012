// Cluster profiles: a written profile reads back to the same values; a bad file is refused naming
// the file, the line and the key at fault.
#include "loom/plan/cluster_profile.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "loom/core/error.hpp"
#include "loom/core/fs.hpp"

namespace loom::plan {
namespace {

ClusterProfile sample_profile() {
  ClusterProfile p;
  p.name = "two \"quoted\" hosts";
  p.sources = "https://example.org/spec, page 2; measured";
  p.cores = 12;
  p.memory_bytes = std::int64_t{96} << 30;
  p.sampled_edges_per_core_second = 1.2345678901234567e7;
  p.gathered_bytes_per_core_second = 3.3e9;
  p.cpu = {7.25e10, 1.5e9, 0.0015};
  p.network = {3.125e9, 3e-5, 1.41e9, 2.809e-3};
  p.gpu = {"A10G", 1, std::int64_t{24} << 30, 2.5e10, {1.1e13, 4.5e10, 0.004}};
  return p;
}

std::string write(const core::TempDir& dir, const std::string& text) {
  const std::string path = dir.path() + "/p.toml";
  std::ofstream(path) << text;
  return path;
}

std::string error_of(const std::string& path) {
  try {
    read_profile(path);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(ClusterProfile, RoundTripKeepsEveryValue) {
  const core::TempDir dir;
  const ClusterProfile p = sample_profile();
  write_profile(p, (dir.path() + "/p.toml"));
  const ClusterProfile q = read_profile((dir.path() + "/p.toml"));
  EXPECT_EQ(q.name, p.name);
  EXPECT_EQ(q.sources, p.sources);
  EXPECT_EQ(q.cores, p.cores);
  EXPECT_EQ(q.memory_bytes, p.memory_bytes);
  EXPECT_EQ(q.sampled_edges_per_core_second, p.sampled_edges_per_core_second);
  EXPECT_EQ(q.gathered_bytes_per_core_second, p.gathered_bytes_per_core_second);
  EXPECT_EQ(q.cpu.flops, p.cpu.flops);
  EXPECT_EQ(q.cpu.values, p.cpu.values);
  EXPECT_EQ(q.cpu.step_overhead, p.cpu.step_overhead);
  EXPECT_EQ(q.network.bandwidth, p.network.bandwidth);
  EXPECT_EQ(q.network.latency, p.network.latency);
  EXPECT_EQ(q.network.host_bandwidth, p.network.host_bandwidth);
  EXPECT_EQ(q.network.host_latency, p.network.host_latency);
  EXPECT_EQ(q.gpu.name, p.gpu.name);
  EXPECT_EQ(q.gpu.per_host, p.gpu.per_host);
  EXPECT_EQ(q.gpu.memory_bytes, p.gpu.memory_bytes);
  EXPECT_EQ(q.gpu.copy_bandwidth, p.gpu.copy_bandwidth);
  EXPECT_EQ(q.gpu.compute.flops, p.gpu.compute.flops);
  EXPECT_EQ(q.gpu.compute.values, p.gpu.compute.values);
  EXPECT_EQ(q.gpu.compute.step_overhead, p.gpu.compute.step_overhead);
}

TEST(ClusterProfile, WithoutGpuSectionHasNoGpu) {
  const core::TempDir dir;
  ClusterProfile p = sample_profile();
  p.gpu = {};
  write_profile(p, (dir.path() + "/p.toml"));
  EXPECT_FALSE(read_profile((dir.path() + "/p.toml")).gpu.present());
}

TEST(ClusterProfile, BadFilesNameTheKeyAndLine) {
  const core::TempDir dir;
  write_profile(sample_profile(), (dir.path() + "/good.toml"));
  std::string good;
  {
    std::ifstream in((dir.path() + "/good.toml"));
    good.assign(std::istreambuf_iterator<char>(in), {});
  }
  const auto replaced = [&](const std::string& from, const std::string& to) {
    std::string text = good;
    text.replace(text.find(from), from.size(), to);
    return write(dir, text);
  };
  // An unknown key, with its line.
  std::string e = error_of(replaced("cores = 12", "cores = 12\nthreads = 4"));
  EXPECT_NE(e.find("threads"), std::string::npos) << e;
  EXPECT_NE(e.find("p.toml:6"), std::string::npos) << e;
  // A value out of range or of the wrong kind.
  e = error_of(replaced("cores = 12", "cores = -3"));
  EXPECT_NE(e.find("host.cores"), std::string::npos) << e;
  e = error_of(replaced("cores = 12", "cores = \"many\""));
  EXPECT_NE(e.find("host.cores"), std::string::npos) << e;
  e = error_of(replaced("[network]\nbandwidth = \"3125000000\"", "[network]\nbandwidth = \"fast\""));
  EXPECT_NE(e.find("network.bandwidth"), std::string::npos) << e;
  e = error_of(replaced("step_overhead = \"0.0015s\"", "step_overhead = \"3 fortnights\""));
  EXPECT_NE(e.find("compute.step_overhead"), std::string::npos) << e;
  // A missing key.
  e = error_of(replaced("gathered_bytes_per_core_second = 3300000000\n", ""));
  EXPECT_NE(e.find("host.gathered_bytes_per_core_second"), std::string::npos) << e;
  // A GPU section without its copy bandwidth.
  e = error_of(replaced("copy_bandwidth = \"25000000000\"\n", ""));
  EXPECT_NE(e.find("gpu.copy_bandwidth"), std::string::npos) << e;
  // Not a file at all.
  EXPECT_NE(error_of((dir.path() + "/absent.toml")).find("absent.toml"), std::string::npos);
}

}  // namespace
}  // namespace loom::plan
