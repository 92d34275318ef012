// The up-front memory plan of one rank of `loom train` (issue 23 item 6). Before the cache, the
// prefetch buffer and the pipeline are built, plan_minibatch_memory() estimates the rank's peak
// resident memory as parts: what the process already holds (LibTorch, MPI: measured), the mapped
// topology and own rows, the static cache, the prefetch buffer, the model with its gradients and
// Adam moments, the batches in flight with their activations (sized from a few batches sampled
// with the run's own plan) and the exact evaluation. check_memory_plan() stops the run, on every
// rank together, where the parts that are still to come exceed what this rank may use, naming the
// estimate, its largest parts and the options that shrink them. The run's setup record
// ("event": "memory") lists the parts; its last record puts the measured peak (VmHWM) beside it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "loom/comm/communicator.hpp"
#include "loom/core/metrics.hpp"
#include "loom/nn/model.hpp"
#include "loom/train/minibatch_options.hpp"
#include "loom/train/training_data.hpp"

namespace loom::train {

// Where a part's bytes live: in the process's own memory, or in pages of a mapped file (the page
// cache, which the kernel can drop and read again), private to this rank or one copy shared by
// every rank of the machine that maps the same file (the topology).
enum class Residence { kResident, kMapped, kMappedShared };

struct MemoryPart {
  std::string name;
  std::int64_t bytes = 0;
  std::string lower;  // the options that shrink it ("" = none)
  Residence residence = Residence::kResident;
  bool on_device = false;  // held on the GPU too under --device cuda (plan_device_memory)
};

struct MemoryPlan {
  std::vector<MemoryPart> parts;
  std::int64_t total() const;
  std::int64_t resident() const;  // the parts in the process's own memory
  // {"event": "memory", "estimate_bytes", "resident_bytes", "mapped_bytes", "parts": {name: bytes},
  //  "mapped_parts": [names]}
  nlohmann::json record() const;
};

// `held_bytes`: this process's resident bytes before it opened the data (core::resident_bytes).
MemoryPlan plan_minibatch_memory(const MinibatchOptions& options, const TrainingData& data, const nn::GnnModel& model,
                                 std::int64_t held_bytes);

// Under --device cuda, what the rank's GPU holds, from the host plan's estimates: the tier of own
// rows (--device-rows), the model and optimizer, the batches in flight (they are copied to the
// device as they are prepared) and one step's activations. Exact inference moves one chunk of
// destinations at a time and is left out.
MemoryPlan plan_device_memory(const MemoryPlan& host_plan, const MinibatchOptions& options, const TrainingData& data);
// Throws Error::in_argument where the device plan does not fit: into `limit_bytes` (naming
// --device-memory-limit), or else into `free_bytes` of the GPU shared by `ranks_on_device` ranks;
// no check where neither is known (free_bytes < 0).
void check_device_memory_plan(const MemoryPlan& plan, std::int64_t limit_bytes, std::int64_t free_bytes,
                              int ranks_on_device, const std::string& device);

// Throws Error::in_argument (naming --memory-limit when `limit_bytes` > 0) where the plan does not
// fit: into limit_bytes per rank, or else into what the machine has available (core::available_bytes)
// shared by `ranks_on_node` ranks, counting resident parts per rank and mapped files not at all
// (their pages are the page cache's: a graph larger than memory is read from disk, not refused).
// No check where neither is known.
void check_memory_plan(const MemoryPlan& plan, std::int64_t limit_bytes, int ranks_on_node);

// What one rank of `loom fullgraph` holds, from its layout (fullgraph_trainer.cpp fills it).
struct FullGraphMemoryInputs {
  std::int64_t runtime = 0;     // resident before the store was opened
  std::int64_t topology = 0;    // bytes of the mapped whole-graph CSR
  std::int64_t rows = 0;        // this rank's feature and label rows
  std::int64_t parameters = 0;  // parameters this rank trains
  std::int64_t hidden = 0;
  int layers = 0;                   // layers of this rank's stage
  std::int64_t slots = 0, own = 0;  // rows of its per-layer buffers: own rows + mirrors; own rows
  bool historical = false;          // one buffer per layer (pipe, hybrid, stale halo), else one
  std::vector<std::int64_t> chunk_rows, chunk_outside, chunk_edges;  // per chunk of its way
  std::int64_t chunk_graphs = 0;  // bytes of the chunks' CSRs and the transposed ones backward builds
  bool edge_messages = false;     // aggregation materialises per-edge messages (non-CPU devices)
};

// Model and Adam state; per layer the buffer of outside rows and the cross-chunk gradients; the
// chunks' graphs; the forward values every chunk keeps for backward (about one row per source and
// three and a half per destination of each layer: dropout, aggregation, mix, product, activation),
// and, where aggregation materialises them (device path), one layer's per-edge messages at a time.
MemoryPlan plan_fullgraph_memory(const FullGraphMemoryInputs& in);

// Collective: rank 0 logs the plan and writes its record (with every rank's estimate and the
// largest, which it returns).
std::int64_t record_memory_plan(const MemoryPlan& plan, const comm::Communicator& world, core::MetricsLog& metrics);
// Collective: the measured peak (VmHWM, mapped file pages included; every rank's and the
// largest) beside `estimate` (every rank's largest), and each rank's private peak (`private_peak`,
// core::PrivatePeak: its own pages) beside its plan's resident part (`resident_estimate`): rank 0
// logs both and writes a "memory_peak" record. Returns the largest peak.
std::int64_t record_memory_peak(std::int64_t estimate, std::int64_t resident_estimate, std::int64_t private_peak,
                                const comm::Communicator& world, core::MetricsLog& metrics);

}  // namespace loom::train
