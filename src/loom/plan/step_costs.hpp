// Step costs: the seconds and bytes of each task of each step on each part, from the counted
// work (step_counts.hpp) and a cluster profile. One rank per host, using all its cores.
//   sample  = sampled edges / (sampled_edges_per_core_second x cores)
//   gather  = (rows read from this host's own or held rows + rows it serves to others) x row
//             bytes in the store / (gathered_bytes_per_core_second x cores)
//   fetch   = DistDGL's two all-to-all rounds (ids out, rows back) priced by the profile's link
//             model (comm::LinkModel: wire and host costs); a round lasts as long as its slowest rank
//   copy    = (input rows x row bytes + the blocks' indices) / the GPU's copy bandwidth (GPU only)
//   compute = step overhead + flops / flop rate (the GPU's where the profile has one, else the
//             host's); flops = 3 x the forward's multiply-adds x 2 (backward ~ twice the forward):
//             SAGE 2 dense layers per block (self and neighbours) + the mean over the block's edges,
//             GCN one, GAT one per head plus its attention over the edges
//   allreduce = ring all-reduces of the gradients in GradientSync's buckets (each 2(P-1) messages
//             and 2(P-1)/P of its bytes each way; the last carries the step's agreement flags)
// A fetch's host part (comm::LinkModel::host_seconds: system calls, copies, protocol work) is work
// for the host's cores too, which the pipeline's fetch thread takes from the model's compute
// (measured here: 2 ranks on 2 cores, compute 0.38 s an epoch slower pipelined than synchronous,
// the fetch's host part 0.37 s).
// Bytes and messages follow comm::Communicator's counting rules exactly (communicator.hpp), so a
// plan's features and gradients bytes are the counters a real run reports.
#pragma once

#include <cstdint>
#include <vector>

#include "loom/comm/link_model.hpp"
#include "loom/nn/model.hpp"
#include "loom/plan/cluster_profile.hpp"
#include "loom/plan/step_counts.hpp"

namespace loom::plan {

struct ModelSpec {
  nn::ModelOptions model;                     // in_features and num_classes filled in
  std::vector<std::int64_t> parameter_sizes;  // of the model built from `model`, in order
  std::int64_t row_bytes = 0;                 // a feature row as the store holds it
  std::int64_t wire_row_bytes = 0;            // a feature row on the wire
};

// The sizes of the parameters of the model `options` builds (LibTorch, on the CPU).
std::vector<std::int64_t> parameter_sizes(const nn::ModelOptions& options);

struct Traffic2 {  // one rank's share of a two-round exchange
  comm::Traffic ids, rows;
};

struct StepCost {
  double sample = 0, gather = 0, copy = 0, compute = 0;
  double copy_bytes = 0;  // host to GPU (0 without one)
  Traffic2 fetch;         // this rank's traffic (seconds: the slowest rank's, see fetch_seconds)
  double fetch_host = 0;  // of which this host's own work (the link model's host part): its cores'
};

struct EpochCosts {
  std::vector<std::vector<StepCost>> parts;  // [part][step]
  comm::Traffic allreduce;                   // every rank's, every step (all its buckets)
  double allreduce_seconds = 0;
  std::vector<double> fetch_seconds;  // per step: both rounds, each its slowest rank's
  bool on_gpu = false;
};

// `holding`: which RemoteRows of the counts the regime keeps (its fetched[holding]); `replicated`:
// every row is the host's own (nothing fetched, nothing served).
EpochCosts cost_epoch(const EpochCounts& counts, double scale, const ModelSpec& spec, const ClusterProfile& profile,
                      std::size_t holding, bool replicated);

// One rank's traffic in a ring all-reduce of `bytes` over `ranks`: 2(P-1) messages and 2(P-1)/P of
// the bytes each way (none on one rank).
comm::Traffic ring_allreduce(int ranks, std::int64_t bytes);

// The work of one training step with these blocks (forward and backward): the dense layers'
// flops, and the values the aggregations move (one row of the layer's input width per edge, once
// forward and twice backward), which cost memory traffic rather than arithmetic.
struct StepWork {
  double flops = 0, values = 0;
};
StepWork step_work(const nn::ModelOptions& model, const std::vector<LayerCount>& layers);

}  // namespace loom::plan
