// StageEngine: one rank's share of a full-graph epoch, for every mode of fullgraph_layout.hpp.
// The rank runs layers [layer_begin, layer_end) of the model for the chunks of its way.
//
// Forward, chunk by chunk in the epoch's order: the stage input arrives from the previous
// stage (comm::Channel::activations; the first stage computes it with the input part); each
// layer reads the chunk's own rows exactly and its outside rows from the layer's buffer, which
// holds historical values (pipe, hybrid: refreshed from every chunk's current rows and, across
// ways, by MirrorExchange) or the halo just exchanged (graph mode: exact full-graph training).
// The stage output goes to the next stage; the last stage computes logits and the loss.
// Backward, in reverse chunk order: the gradient of the stage output arrives from the next
// stage (Channel::gradients) and flows back layer by layer; gradients of outside rows are
// accumulated for the chunks that own them (sent back to their owners in graph mode), and each
// chunk's accumulated contributions join its gradient before it is passed on. Those that reach
// a chunk after its backward are dropped, with the others doubled (unbiased estimate) or not
// (drop); or (stale) every chunk keeps adding each other chunk's latest contribution, this
// epoch's where that chunk's backward came first, else last epoch's. Weight gradients accumulate in the
// model's parameters; the caller all-reduces and steps.
// With stale_halo (graph mode) the layers read last epoch's halo and this epoch's exchanges run
// on a background thread, overlapped with compute, their gradients applied one epoch late.
// Tensors live on the model's device; stage-to-stage transfers go through host memory.
#pragma once

#include <memory>
#include <span>
#include <vector>

#include <torch/torch.h>

#include "loom/comm/communicator.hpp"
#include "loom/core/thread_pool.hpp"
#include "loom/nn/deep_model.hpp"
#include "loom/train/checkpoint.hpp"
#include "loom/train/fullgraph/chunk_set.hpp"
#include "loom/train/fullgraph/fullgraph_data.hpp"
#include "loom/train/fullgraph/fullgraph_options.hpp"
#include "loom/train/fullgraph/mirror_exchange.hpp"
#include "loom/train/fullgraph/pipeline_threads.hpp"
#include "loom/scores/node_scores.hpp"

namespace loom::train {

struct StageCounts {
  double loss = 0;                         // this rank's share of the loss (last stage only)
  scores::ScoreCounts train, valid, test;  // this rank's nodes (last stage only)
  double bubble_seconds = 0;               // blocked waiting for the neighbouring stages
  double exchange_seconds = 0;             // in mirror exchanges (waiting for background ones included)
};

// What exact inference leaves on the last stage, by chunk of its way: logits and the output
// layer's input (the final hidden rows).
struct ChunkResults {
  std::vector<torch::Tensor> logits, hidden;
};

class StageEngine {
 public:
  // stage_comm: the ranks of this stage (ways); world: all ranks (stage-to-stage transfers).
  // threads: how many threads to compute each step with (pipeline_threads.hpp).
  StageEngine(nn::DeepGnn& model, const FullGraphOptions& options, const FullGraphLayout& layout, int layer_begin,
              int layer_end, const ChunkSet& chunks, const partition::PartitionBook& book, const FullGraphData& data,
              const comm::Communicator& world, const comm::Communicator& stage_comm, const PipelineThreads& threads);
  ~StageEngine();

  // One training epoch over the chunks in `order` (every rank passes the same order).
  StageCounts train_epoch(std::span<const int> order, bool refresh_history);
  // Exact full-graph inference, without dropout, layer by layer: every chunk of the way finishes
  // a layer (and the ways exchange its mirror rows) before any chunk starts the next, so no
  // historical value is read and the historical buffers are left as they are. A stage passes
  // all its chunks on after its last layer. With `results`, the last stage also keeps its chunks'
  // logits and final hidden rows there.
  StageCounts evaluate(ChunkResults* results = nullptr);
  // What carries from one epoch to the next besides the weights (historical buffers; with the
  // stale halo or stale cross-chunk gradients, also the late gradients), as aliases: checkpoints
  // save them and load into them.
  CheckpointTensors carried_tensors() const;

 private:
  struct ChunkState;
  void forward_chunk(int c, bool train, bool refresh, ChunkState& state, StageCounts& counts,
                     std::vector<std::pair<torch::Tensor, comm::Request>>& sends);
  // Last stage: logits, loss and scores of chunk c; other stages: send the chunk's output on.
  void finish_forward(int c, const torch::Tensor& out, bool train, ChunkState& state, StageCounts& counts,
                      std::vector<std::pair<torch::Tensor, comm::Request>>& sends);
  void backward_chunk(int c, ChunkState& state, StageCounts& counts,
                      std::vector<std::pair<torch::Tensor, comm::Request>>& sends);
  torch::Tensor receive(int c, int from_stage, int tag, comm::Channel channel, StageCounts& counts) const;
  void use_threads(int threads);
  void wait_background(StageCounts& counts);

  nn::DeepGnn* model_;
  const FullGraphOptions* options_;
  FullGraphLayout layout_;
  int begin_, end_;
  const ChunkSet* chunks_;
  const FullGraphData* data_;
  const comm::Communicator* world_;
  torch::Device device_;  // the model's
  MirrorExchange mirrors_;
  PipelineThreads threads_;
  int current_threads_;
  bool graph_mode_, needs_input_;
  double cross_scale_;       // factor of cross-chunk gradients (one chunk 1, unbiased 2, stale 1, drop 0)
  bool latest_cross_grads_;  // stale: pending_ is the running sum of every chunk's latest contributions
  bool carry_cross_grads_;   // pending_ carries late cross-chunk gradients into the next epoch
  // Stale: [layer - begin][chunk] what the chunk last added to same-way rows, and the rows the
  // other ways last returned for it (per peer).
  std::vector<std::vector<torch::Tensor>> last_local_;
  std::vector<std::vector<std::vector<torch::Tensor>>> last_mirror_;
  std::vector<torch::Tensor> history_;  // [layer - begin]: [slots, H] (pipe/hybrid, stale halo)
  std::vector<torch::Tensor> pending_;  // [layer - begin]: [own rows, H] cross-chunk gradients
  // Stale halo: exchanges on a background thread over a duplicated stage communicator.
  std::unique_ptr<comm::Communicator> async_comm_;
  std::unique_ptr<MirrorExchange> async_mirrors_;
  std::unique_ptr<core::ThreadPool> background_;
  std::vector<std::future<void>> in_flight_;
  std::vector<torch::Tensor> late_grads_;  // [layer - begin]: received this epoch, applied next
};

}  // namespace loom::train
