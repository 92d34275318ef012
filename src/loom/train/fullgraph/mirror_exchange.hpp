// MirrorExchange: the per-layer traffic between the ways of one pipeline stage (the ranks that
// split the graph at the same layers). All ways process their chunk c at the same step, so:
//   exchange_values(c, ...)  each way sends the rows of its chunk c that other ways read and
//                            writes the rows it reads from the others' chunk c into its buffer;
//   exchange_grads(c, ...)   each way returns the gradients of its chunk c's mirror sources to
//                            their owners, who add them to their own rows: as they are where
//                            the owner's chunk c reads them (it is at the same step, so they are
//                            in time), times `scale` for the owner's other chunks.
// With one chunk per way (graph parallelism) this is the halo exchange of every layer, forward
// and backward, and moves sum_p M_p rows each way; with several chunks the values refresh the
// receivers' historical buffers. Both are collective over the stage communicator (a no-op with
// one way) and count on comm::Channel::halo. The constructor agrees on the lists once (control).
// Rows on a device travel through host memory; the index lists live on the device.
#pragma once

#include <cstdint>
#include <vector>

#include <torch/types.h>

#include "loom/comm/communicator.hpp"
#include "loom/train/fullgraph/chunk_set.hpp"

namespace loom::train {

class MirrorExchange {
 public:
  MirrorExchange(const ChunkSet& chunks, const partition::PartitionBook& book, const FullGraphLayout& layout,
                 const comm::Communicator& stage_comm, torch::Device device = torch::kCPU);

  // values: [chunk c's rows, H]; buffer: [chunks.num_slots(), H] (mirror slots are written).
  void exchange_values(int c, const torch::Tensor& values, torch::Tensor& buffer) const;
  // outside_grad: [chunk c's outside sources, H]; own_grads: [own rows, H] (received rows added).
  // With `previous` (from zero_receipts(c, H), kept by the caller per chunk and layer), the rows
  // received for chunk c replace those received for it last time: own_grads gets the difference.
  void exchange_grads(int c, const torch::Tensor& outside_grad, torch::Tensor& own_grads, double scale,
                      std::vector<torch::Tensor>* previous = nullptr) const;
  // Zero rows of the size of what exchange_grads(c, ...) receives from each peer.
  std::vector<torch::Tensor> zero_receipts(int c, std::int64_t width, const torch::TensorOptions& options) const;

  bool active() const { return comm_->size() > 1; }

 private:
  struct ChunkLists {
    std::vector<torch::Tensor> value_send;       // [peer] local rows of my chunk c that the peer reads
    std::vector<torch::Tensor> value_recv;       // [peer] my slots for the rows of the peer's chunk c
    std::vector<torch::Tensor> grad_send;        // [peer] positions in my chunk c's outside list it owns
    std::vector<torch::Tensor> grad_recv;        // [peer] own-row offsets the peer's chunk c returns
    std::vector<torch::Tensor> grad_recv_other;  // [peer] [n, 1]: 1 where not my chunk c's row, else 0
  };
  // The constructor's two exchanges of lists (control): which rows each way reads of the others'
  // chunks, and which outside sources' gradients go back to their owners.
  void agree_on_values(const ChunkSet& chunks, const partition::PartitionBook& book, const FullGraphLayout& layout);
  void agree_on_gradients(const ChunkSet& chunks, const partition::PartitionBook& book, const FullGraphLayout& layout);

  const comm::Communicator* comm_;
  std::vector<ChunkLists> lists_;  // [chunk]
};

}  // namespace loom::train
