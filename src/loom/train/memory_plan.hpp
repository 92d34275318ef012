// A rank's memory plan, shared by both trainers (issue 23 item 6): its estimated peak as named
// parts (what the process already holds, the mapped topology and own rows, the model with its
// gradients and Adam moments, the batches or layer buffers with their activations...), each with
// where it lives and the options that shrink it. Each trainer builds its plan before it allocates
// (minibatch/minibatch_memory.hpp, fullgraph/fullgraph_memory.hpp); check_memory_plan() stops the
// run, on every rank together, where the parts still to come exceed what this rank may use, naming
// the estimate, its largest parts and the options that shrink them. The run's setup record
// ("event": "memory") lists the parts; its last record puts the measured peak (VmHWM) beside it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "loom/comm/communicator.hpp"
#include "loom/core/metrics.hpp"

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

// The shape of a model, for checking its size before it is built.
struct ModelShape {
  std::int64_t in_features = 0, hidden = 0, num_classes = 0;
  int layers = 0;
  std::string store;  // whose meta.json gives in_features and num_classes
};
// Throws Error before the model is built where its weights alone (with their gradients and Adam's two
// moments, 16 bytes a parameter) cannot fit where check_memory_plan's plan would have to: the
// weights of a model of this shape are at least in x hidden + (layers - 2) x hidden^2 + hidden x
// classes parameters. Names --hidden, or the store's num_classes (its largest label + 1) where
// the classes are what does not fit; an allocator's failure would name nothing.
void check_model_fits(const ModelShape& shape, std::int64_t limit_bytes, int ranks_on_node);

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
