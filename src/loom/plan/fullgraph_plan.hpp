// `loom plan fullgraph`: predicts an epoch of `loom fullgraph` (plan/planner.hpp does `loom
// train`'s) on K hosts of a profiled cluster, one rank per host, for graph, pipe and hybrid
// parallelism, and names the fastest. For each K and mode the store is split as `loom fullgraph`
// would run on it (its own parts where it has as many, else kway_graph.hpp's split: K parts, or
// ways x --chunks), laid out by the trainer's own make_layout (S stages of W ways, C chunks a way),
// and every part's rows, in-edges and outside rows by owner are counted exactly. Then:
//   work     per layer and part, the multiply-adds of the layer's weight matrices x the part's
//            rows (2 flops each) and the aggregation's values (in-edges x hidden), forward once
//            and backward twice (step_costs.hpp's convention), priced by the profile's compute
//            rates (the GPU's where it has one, else the host's per core x cores)
//   exchange at every layer of every chunk step, the stage's ways exchange the rows of their chunk
//            that other ways read (forward) and the gradients of their outside rows (backward):
//            all-to-alls priced by the link model, the slowest way's (graph mode: the halo)
//   schedule each stage takes every chunk forward in order, then backward in reverse; a chunk
//            step starts when its stage is free and the previous stage's activations (rows x
//            hidden) have arrived, and lasts, layer by layer, the slowest way's compute and the
//            exchange; the layers split over the stages as the trainer splits them (counted layer
//            costs, balance_layers); idle time is the bubble
//   all-reduce each stage's layers over its ways (ring, GradientSync's buckets); the input part
//            over every rank where every layer reads it (GCNII), else over the first stage's ways
// Bytes follow comm::Communicator's counting (halo, activations, gradients, weights channels), so
// a plan's bytes are the counters a run reports. Not modelled: --stale-halo.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "loom/partition/partitioner.hpp"
#include "loom/plan/cluster_profile.hpp"
#include "loom/train/fullgraph/fullgraph_options.hpp"

namespace loom::plan {

struct FullGraphPlanOptions {
  std::string cluster;  // profile file
  std::vector<int> hosts = {2, 4};
  std::vector<train::FullGraphMode> modes = {train::FullGraphMode::kGraph, train::FullGraphMode::kPipe};
  partition::PartitionMethod partition_method = partition::PartitionMethod::kMetis;
  train::FullGraphOptions fullgraph;  // the store, model, --chunks, seed
};

struct FullGraphModeResult {
  train::FullGraphMode mode = train::FullGraphMode::kGraph;
  int parts = 0;  // the store's parts the mode runs on (graph: one per host; pipe, hybrid: chunks)
  double epoch_seconds = 0;
  double compute = 0;   // the slowest rank's compute
  double exchange = 0;  // the slowest stage's mirror exchanges, and activations and gradients on the wire
  double bubble = 0;    // pipe: the slowest rank's idle time
  double allreduce = 0;
  double halo_bytes = 0, activation_bytes = 0, gradient_bytes = 0, weight_bytes = 0;  // all ranks, sent
  std::vector<int> layer_bounds;  // stage s runs layers layer_bounds[s] .. layer_bounds[s + 1] - 1
};

struct FullGraphHosts {
  int hosts = 0;
  std::vector<FullGraphModeResult> modes;
  int fastest = -1;
};

struct FullGraphPlan {
  std::string graph, cluster, model;
  std::vector<FullGraphHosts> results;
  nlohmann::json to_json() const;
  std::string table() const;
};

// Throws Error naming the argument at fault (--hosts, --modes, --ways, --chunks, --layers, --cluster,
// the store).
FullGraphPlan make_fullgraph_plan(const FullGraphPlanOptions& options);

}  // namespace loom::plan
