// `loom plan`: predicts an epoch of `loom train` on a cluster of K hosts not at hand, for each K
// and each regime asked, and names the fastest that fits each host's memory. For each K it splits
// the graph K ways (kway_graph.hpp), counts every step's work once (step_counts.hpp), prices it
// with the cluster profile (step_costs.hpp), runs the epoch step by step (epoch_simulation.hpp)
// and adds up each host's memory (host_memory.hpp). Regimes:
//   replicated    every host holds every feature row (SALIENT++'s full replication): no fetch
//   partitioned   METIS parts, remote rows fetched synchronously (DistDGL: --pipeline-depth 0)
//   pipelined     the same with the pipeline (--pipeline-depth, 4 unless the options give one)
//   cache         pipelined with a static cache of remote rows, per policy and alpha (SALIENT++)
//   prefetch      pipelined with Rudder's prefetch buffer of a fraction of the halo, modelled by
//                 its best static contents (the rows VIP ranks first): a lower bound on its fetches
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "loom/core/enum_names.hpp"
#include "loom/feature/cache_policy.hpp"
#include "loom/plan/cluster_profile.hpp"
#include "loom/plan/epoch_simulation.hpp"
#include "loom/plan/host_memory.hpp"
#include "loom/plan/kway_graph.hpp"
#include "loom/train/minibatch/minibatch_options.hpp"

namespace loom::plan {

enum class RegimeKind { kReplicated, kPartitioned, kPipelined, kCache, kPrefetch };
inline constexpr core::EnumNames<RegimeKind, 5> kRegimeNames{{{"replicated", RegimeKind::kReplicated},
                                                              {"partitioned", RegimeKind::kPartitioned},
                                                              {"pipelined", RegimeKind::kPipelined},
                                                              {"cache", RegimeKind::kCache},
                                                              {"prefetch", RegimeKind::kPrefetch}}};

struct PlanOptions {
  std::string store;  // or shape
  std::optional<GraphShape> shape;
  std::string cluster;  // profile file
  std::vector<int> hosts = {2, 4, 8};
  std::vector<RegimeKind> regimes = {RegimeKind::kReplicated, RegimeKind::kPartitioned, RegimeKind::kPipelined,
                                     RegimeKind::kCache, RegimeKind::kPrefetch};
  std::vector<feature::CachePolicy> policies = {feature::CachePolicy::kVip};
  std::vector<double> alphas = {0.05, 0.2};
  std::vector<double> prefetch = {0.25};
  partition::PartitionMethod partition_method = partition::PartitionMethod::kMetis;  // where the plan splits
  train::MinibatchOptions train;  // model, fanouts, batch size, pipeline depth, wire dtype, seed
  // Where each host count's counted work is kept and read back (counts_cache.hpp; empty: the
  // default folder), and whether to count afresh (and keep the new counts) even where it is kept.
  std::string counts_dir;
  bool recount = false;
};

struct RegimeResult {
  std::string name;  // "cache vip a=0.2"
  RegimeKind kind = RegimeKind::kReplicated;
  int pipeline_depth = 0;
  EpochPrediction epoch;
  double feature_bytes = 0, feature_messages = 0;  // all ranks, sent
  double gradient_bytes = 0, gradient_messages = 0;
  double device_bytes = 0;  // host to GPU, all ranks
  double remote_rows = 0;   // rows fetched, all ranks
  HostMemory memory;
  bool fits = false;
};

struct HostsResult {
  int hosts = 0;
  std::int64_t steps = 0;
  std::string origin;  // where the K-way split comes from
  std::vector<RegimeResult> regimes;
  int fastest_fitting = -1;  // index into regimes, -1 = none fits
};

struct Plan {
  std::string graph;    // the store, or the shape in words
  std::string cluster;  // the profile's name and file
  ClusterProfile profile;
  std::vector<HostsResult> results;
  nlohmann::json to_json() const;
  std::string table() const;
};

// Throws Error naming the argument at fault (--hosts, --alphas, --prefetch-fractions, --cluster...),
// and for options of runs it does not model (--task link, --superbatch, --device-rows).
Plan make_plan(const PlanOptions& options);

}  // namespace loom::plan
