// BatchBuilder turns seed ids into everything one training or evaluation step needs: the sampled
// blocks (as nn::MessageGraphs), the input feature rows (through the collective FeatureSource:
// own rows copied, cached rows read, the rest fetched from their owners), and the seeds' labels, with the time spent
// sampling and fetching. build() is collective (because of the fetch). With DeviceFeatures, the
// batch (features, graphs, labels) is copied to its device on the copy stream (fetch() returns
// with the copies queued), and the own rows of its tier come from there; wait_for_copies() makes
// the caller's stream wait for them before it computes on the batch (build() does so itself).
// With `whole_graph_gcn_norm` (for GCN models), every graph carries the whole graph's GCN
// normalisation (nn::sampled_gcn_norm), so that training computes the GCN that exact inference
// computes: with every neighbour sampled, exactly the full-graph GCN.
// A superbatch (fetch_group(), then finish_grouped() per batch; MariusGNN's and Ginex's answer to
// features on disk): the input rows of several sampled batches in one collective gather, each
// distinct id once, so that one sweep of a mapped feature file serves them all. The group's rows
// are held in the store's dtype (float16 stays float16) until each batch's turn; the batches are
// the same as fetched one by one.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include <torch/torch.h>

#include "loom/feature/feature_source.hpp"
#include "loom/nn/message_graph.hpp"
#include "loom/sample/neighbor_sampler.hpp"
#include "loom/loader/copy_stream.hpp"
#include "loom/loader/device_features.hpp"
#include "loom/loader/loader_options.hpp"
#include "loom/loader/training_data.hpp"

namespace loom::loader {

struct PreparedBatch {
  sample::SampledBatch sampled;
  std::vector<nn::MessageGraph> graphs;  // one per layer, input layer first
  torch::Tensor x;                       // [input nodes, feat_dim] float32 (sparse CSR: sparse_rows()), on the device
  torch::Tensor y;                       // int64 [seeds] or float [seeds, classes]
  feature::FetchStats fetch;
  double sample_seconds = 0;
  CopiesDone copies;        // the copies of x, y and graphs to the device
  double copy_seconds = 0;  // queueing them
  // Between fetch_group() and finish_grouped(): x holds the group's distinct rows (shared by its
  // batches, in the store's dtype, on the host) and these are this batch's rows among them.
  torch::Tensor group_positions;

  // The calling thread's current stream waits for the copies (nothing to do on CPU).
  void wait_for_copies() const;
};

// The bytes per value of a superbatch's rows while they wait (fetch_group): float16 rows stay
// float16 (2), the others are held as float32 (4).
inline std::int64_t grouped_value_bytes(format::DType rows) { return rows == format::DType::kFloat16 ? 2 : 4; }

class BatchBuilder {
 public:
  // `device` may be null (CPU, no tier); what the pointers name must outlive the builder.
  BatchBuilder(const TrainingData& data, const sample::NeighborSampler& sampler, const feature::FeatureSource& features,
               const DeviceFeatures* device, bool whole_graph_gcn_norm, SeedLabels seed_labels = SeedLabels::kGathered)
      : data_(&data),
        sampler_(&sampler),
        features_(&features),
        device_(device),
        whole_graph_gcn_norm_(whole_graph_gcn_norm),
        seed_labels_(seed_labels) {}

  PreparedBatch build(std::span<const std::int64_t> seeds, std::uint64_t sample_seed) const;
  // build() in two steps, so that a pipeline can sample ahead of its fetches: sample() fills the
  // sampled blocks and graphs; fetch() (collective) the features and labels, telling the prefetch
  // buffer the batches sampled after this one (`upcoming`).
  // `dropped_pairs`: node pairs whose message edges are left out (sample::drop_pair_edges).
  PreparedBatch sample(std::span<const std::int64_t> seeds, std::uint64_t sample_seed,
                       std::span<const std::int64_t> dropped_pairs = {}) const;
  void fetch(PreparedBatch& batch, std::span<const std::span<const std::int64_t>> upcoming = {}) const;
  // Collective: the features and labels of sampled `batches` in one gather (a superbatch; not
  // with a prefetch buffer or a device tier). The group's fetch statistics go to its first batch.
  void fetch_group(std::span<PreparedBatch> batches) const;
  // A batch of fetch_group(), ready as fetch() leaves one: x its float32 rows, copies queued.
  void finish_grouped(PreparedBatch& batch) const;
  // Whether batches carry x as a sparse CSR tensor (int32 indices): from a sparse store, without
  // a device tier or own rows read in place; otherwise x is dense.
  bool sparse_rows() const;
  // Labels of seeds owned by this rank (empty with SeedLabels::kNone).
  torch::Tensor labels(std::span<const std::int64_t> seeds) const;

 private:
  // Whether host tensors bound for the device are allocated pinned (so they are copied without
  // blocking the producer): under CUDA.
  bool pinned() const { return device_ != nullptr && device_->device().is_cuda(); }
  // The batch's tensors on the device, on the copy stream; copy_seconds says how long it took.
  void copy_to_device(PreparedBatch& batch, const torch::Tensor& host, const feature::TierRows& tier_rows,
                      const torch::Tensor& y) const;

  const TrainingData* data_;
  const sample::NeighborSampler* sampler_;
  const feature::FeatureSource* features_;
  const DeviceFeatures* device_;
  bool whole_graph_gcn_norm_;
  SeedLabels seed_labels_;
};

}  // namespace loom::loader
