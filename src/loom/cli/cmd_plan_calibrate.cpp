// `loom plan calibrate -o FILE`: this host's cluster profile, measured (plan/calibrate.hpp); the
// network's entries from --net-* (default: the host costs bench/results/netcluster.md measured).
#include <cstdio>
#include <memory>

#include "loom/cli/commands.hpp"
#include "loom/cli/typed_options.hpp"
#include "loom/core/fs.hpp"
#include "loom/plan/calibrate.hpp"

namespace loom::cli {

namespace {

struct CalibrateFlags {
  plan::CalibrateOptions options;
  std::string output;
  bool overwrite = false;
  std::string bandwidth = "10Gbit", latency = "50us", host_bandwidth = "1.41GB/s", host_latency = "2809us";
};

int run_calibrate(const CalibrateFlags& flags) {
  core::check_output_target(flags.output, flags.overwrite, "-o");
  plan::CalibrateOptions options = flags.options;
  options.network = comm::parse_link_model(flags.bandwidth, flags.latency, flags.host_bandwidth, flags.host_latency);
  const plan::ClusterProfile profile =
      plan::calibrate(options, [](const std::string& line) { std::printf("%s\n", line.c_str()); });
  plan::write_profile(profile, flags.output);
  std::printf("profile written to %s\n", flags.output.c_str());
  return 0;
}

}  // namespace

void add_plan_calibrate(CLI::App& plan, Action& action) {
  auto flags = std::make_shared<CalibrateFlags>();
  auto& o = flags->options;
  auto* sub = plan.add_subcommand("calibrate", "Measure this host's entries of a cluster profile (short runs)");
  sub->add_option("-o,--output", flags->output, "Profile to write (TOML)")->required();
  sub->add_flag("--overwrite", flags->overwrite, "Replace the profile if it exists");
  sub->add_option("--name", o.name, "The profile's name")->capture_default_str();
  sub->add_option("--scale", o.scale, "log2 nodes of the R-MAT graph measured on")->capture_default_str();
  sub->add_option("--feat-dim", o.feat_dim, "Feature width gathered and trained on")->capture_default_str();
  add_fanouts_option(*sub, "--fanouts", o.fanouts, "Neighbours sampled per layer");
  sub->add_option("--batch-size", o.batch_size, "Seeds per batch")->capture_default_str();
  sub->add_option("--hidden", o.hidden, "Hidden widths the compute line is fitted through")
      ->delimiter(',')
      ->capture_default_str();
  sub->add_option("--steps", o.steps, "Training steps measured per width")->capture_default_str();
  sub->add_option("--net-bandwidth", flags->bandwidth, "The cluster's network: bandwidth per host")
      ->capture_default_str();
  sub->add_option("--net-latency", flags->latency, "The cluster's network: latency per message")->capture_default_str();
  sub->add_option("--net-host-bandwidth", flags->host_bandwidth,
                  "The host's cost per byte moved (default: TCP on this machine, bench/results/netcluster.md)")
      ->capture_default_str();
  sub->add_option("--net-host-latency", flags->host_latency, "The host's cost per message (default: as above)")
      ->capture_default_str();
  sub->callback([&action, flags] { action = [flags] { return run_calibrate(*flags); }; });
}

}  // namespace loom::cli
