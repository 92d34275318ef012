// `loom plan fullgraph`: predicts an epoch of `loom fullgraph` (plan/planner.hpp does `loom
// train`'s) on K hosts of a profiled cluster, one rank per host, for graph and pipe parallelism,
// and names the faster. For each K the store is split as `loom fullgraph` would run on it (its
// own parts where it has K, else kway_graph.hpp's split: K parts for graph mode, --chunks (or K)
// for pipe mode), and every part's rows, in-edges and outside rows are counted exactly. Then:
//   work     per layer and part, the multiply-adds of the layer's weight matrices x the part's
//            rows (2 flops each) and the aggregation's values (in-edges x hidden), forward once
//            and backward twice (step_costs.hpp's convention), priced by the profile's compute
//            rates (the GPU's where it has one, else the host's per core x cores)
//   graph    every layer forward waits for its slowest part, then the mirror exchange of that
//            layer (hidden-wide rows each part sends to each reader, an all-to-all priced by the
//            link model, the slowest rank's); backward the same in reverse; then the ring
//            all-reduce of every parameter's gradient
//   pipe     the layers split over the K stages as `loom fullgraph` splits them (counted layer
//            costs, balance_layers); each stage runs every chunk forward, then every chunk
//            backward in reverse order, a chunk starting when its stage is free and the previous
//            stage's activations (rows x hidden) have arrived: a step-by-step schedule whose end
//            is the epoch, its idle time the bubble; historical rows of other chunks are read
//            locally; the input layer's gradient is all-reduced where every layer reads it (GCNII)
// Bytes follow comm::Communicator's counting (halo, activations, gradients, weights channels), so
// a plan's bytes are the counters a run reports. Not modelled: hybrid mode, --stale-halo.
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
  int parts = 0;  // graph: one per host; pipe: chunks
  double epoch_seconds = 0;
  double compute = 0;   // the slowest rank's compute
  double exchange = 0;  // graph: mirror exchanges; pipe: activations and gradients on the wire
  double bubble = 0;    // pipe: the slowest rank's idle time
  double allreduce = 0;
  double halo_bytes = 0, activation_bytes = 0, gradient_bytes = 0, weight_bytes = 0;  // all ranks, sent
  std::vector<int> layer_bounds;                                                      // pipe: per stage
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

// Throws Error naming the argument at fault (--hosts, --modes, --chunks, --cluster, the store).
FullGraphPlan make_fullgraph_plan(const FullGraphPlanOptions& options);

}  // namespace loom::plan
