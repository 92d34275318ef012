#include "loom/train/fullgraph/mirror_exchange.hpp"

#include <algorithm>

#include <torch/torch.h>

#include "loom/nn/device.hpp"
#include "loom/train/fullgraph/index_tensor.hpp"

namespace loom::train {

namespace {

// Sends one float block per peer; returns each peer's rows as a [rows, width] tensor on `device`.
std::vector<torch::Tensor> send_rows(const comm::Communicator& comm, const std::vector<torch::Tensor>& blocks,
                                     std::int64_t width, torch::Device device) {
  std::vector<std::vector<float>> send(blocks.size());
  for (std::size_t q = 0; q < blocks.size(); ++q) {
    if (!blocks[q].defined() || blocks[q].numel() == 0) continue;
    const auto t = nn::to_host(blocks[q], comm).contiguous();
    send[q].assign(t.data_ptr<float>(), t.data_ptr<float>() + t.numel());
  }
  auto recv = comm.alltoallv(send, comm::Channel::halo);
  std::vector<torch::Tensor> out(recv.size());
  for (std::size_t q = 0; q < recv.size(); ++q) {
    const auto rows = static_cast<std::int64_t>(recv[q].size()) / std::max<std::int64_t>(width, 1);
    const auto received = torch::from_blob(recv[q].data(), {rows, width}, torch::kFloat32);
    out[q] = device.is_cpu() ? received.clone() : nn::to_device(received, device, comm);
  }
  return out;
}

}  // namespace

MirrorExchange::MirrorExchange(const ChunkSet& chunks, const partition::PartitionBook& book,
                               const FullGraphLayout& layout, const comm::Communicator& stage_comm,
                               torch::Device device)
    : comm_(&stage_comm) {
  const int ways = layout.ways;
  const int num_chunks = static_cast<int>(chunks.chunks().size());
  lists_.resize(static_cast<std::size_t>(num_chunks));
  for (auto& l : lists_) {
    l.value_send.resize(ways);
    l.value_recv.resize(ways);
    l.grad_send.resize(ways);
    l.grad_recv.resize(ways);
    l.grad_recv_other.resize(ways);
  }
  if (ways == 1) return;
  agree_on_values(chunks, book, layout);
  agree_on_gradients(chunks, book, layout);
  for (auto& l : lists_)
    for (auto* lists : {&l.value_send, &l.value_recv, &l.grad_send, &l.grad_recv, &l.grad_recv_other})
      for (auto& t : *lists)
        if (t.defined()) t = t.to(device);
}

// Values: tell each owner which of its rows I read (my mirrors are sorted, hence grouped).
void MirrorExchange::agree_on_values(const ChunkSet& chunks, const partition::PartitionBook& book,
                                     const FullGraphLayout& layout) {
  const int ways = layout.ways, me = layout.way;
  const int num_chunks = static_cast<int>(chunks.chunks().size());
  std::vector<std::vector<std::int64_t>> need(ways);
  auto way_of = [&](std::int64_t id) { return layout.way_of_part(book.owner(id)); };
  for (std::int64_t id : chunks.mirrors()) need[static_cast<std::size_t>(way_of(id))].push_back(id);
  const auto wanted = comm_->alltoallv(need, comm::Channel::control);
  for (int c = 0; c < num_chunks; ++c) {
    const partition::IdRange mine = chunks.chunk(c).rows;
    for (int q = 0; q < ways; ++q) {
      if (q == me) continue;
      std::vector<std::int64_t> send, recv;
      for (std::int64_t id : wanted[q])
        if (mine.contains(id)) send.push_back(id - mine.begin);
      const partition::IdRange theirs = book.range(layout.part_of(q, c));
      for (std::int64_t id : need[q])
        if (theirs.contains(id)) recv.push_back(chunks.slot(id));
      lists_[c].value_send[q] = index_tensor(send);
      lists_[c].value_recv[q] = index_tensor(recv);
    }
  }
}

// Gradients: per chunk, the outside sources each other way owns (positions here, ids there).
void MirrorExchange::agree_on_gradients(const ChunkSet& chunks, const partition::PartitionBook& book,
                                        const FullGraphLayout& layout) {
  const int ways = layout.ways, me = layout.way;
  const int num_chunks = static_cast<int>(chunks.chunks().size());
  auto way_of = [&](std::int64_t id) { return layout.way_of_part(book.owner(id)); };
  std::vector<std::vector<std::int64_t>> grad_ids(ways);  // per peer: [count_c, ids...] for each chunk
  for (int c = 0; c < num_chunks; ++c) {
    const Chunk& chunk = chunks.chunk(c);
    std::vector<std::vector<std::int64_t>> pos(ways), ids(ways);
    for (std::size_t i = 0; i < chunk.outside.size(); ++i) {
      const int q = way_of(chunk.outside[i]);
      if (q == me) continue;
      pos[q].push_back(static_cast<std::int64_t>(i));
      ids[q].push_back(chunk.outside[i]);
    }
    for (int q = 0; q < ways; ++q) {
      if (q == me) continue;
      lists_[c].grad_send[q] = index_tensor(pos[q]);
      grad_ids[q].push_back(static_cast<std::int64_t>(ids[q].size()));
      grad_ids[q].insert(grad_ids[q].end(), ids[q].begin(), ids[q].end());
    }
  }
  const auto returned = comm_->alltoallv(grad_ids, comm::Channel::control);
  const std::int64_t own_begin = chunks.own().begin;
  for (int q = 0; q < ways; ++q) {
    if (q == me) continue;
    std::size_t at = 0;
    for (int c = 0; c < num_chunks; ++c) {
      const auto n = static_cast<std::size_t>(returned[q].at(at++));
      std::vector<std::int64_t> rows(n);
      for (std::size_t i = 0; i < n; ++i) rows[i] = returned[q].at(at++) - own_begin;
      // Rows of my chunk c come back at the step my chunk c takes its backward: always in time.
      const Chunk& mine = chunks.chunk(c);
      std::vector<float> other(n);
      for (std::size_t i = 0; i < n; ++i)
        other[i] = rows[i] >= mine.slot_begin && rows[i] < mine.slot_begin + mine.size() ? 0.0f : 1.0f;
      lists_[c].grad_recv[q] = index_tensor(rows);
      lists_[c].grad_recv_other[q] = torch::tensor(other).unsqueeze(1);
    }
  }
}

void MirrorExchange::exchange_values(int c, const torch::Tensor& values, torch::Tensor& buffer) const {
  if (!active()) return;
  const ChunkLists& l = lists_[static_cast<std::size_t>(c)];
  std::vector<torch::Tensor> blocks(l.value_send.size());
  for (std::size_t q = 0; q < blocks.size(); ++q)
    if (l.value_send[q].defined()) blocks[q] = values.index_select(0, l.value_send[q]);
  const auto got = send_rows(*comm_, blocks, buffer.size(1), buffer.device());
  for (std::size_t q = 0; q < got.size(); ++q)
    if (l.value_recv[q].defined() && l.value_recv[q].numel() > 0) buffer.index_copy_(0, l.value_recv[q], got[q]);
}

void MirrorExchange::exchange_grads(int c, const torch::Tensor& outside_grad, torch::Tensor& own_grads, double scale,
                                    std::vector<torch::Tensor>* previous) const {
  if (!active()) return;
  const ChunkLists& l = lists_[static_cast<std::size_t>(c)];
  std::vector<torch::Tensor> blocks(l.grad_send.size());
  for (std::size_t q = 0; q < blocks.size(); ++q)
    if (l.grad_send[q].defined()) blocks[q] = outside_grad.index_select(0, l.grad_send[q]);
  const auto got = send_rows(*comm_, blocks, own_grads.size(1), own_grads.device());
  for (std::size_t q = 0; q < got.size(); ++q) {
    if (!l.grad_recv[q].defined() || l.grad_recv[q].numel() == 0) continue;
    torch::Tensor rows = scale == 1.0 ? got[q] : got[q] * (1.0 + (scale - 1.0) * l.grad_recv_other[q]);
    if (previous) {
      torch::Tensor& last = (*previous)[q];
      const torch::Tensor change = rows - last;
      last = rows;
      rows = change;
    }
    own_grads.index_add_(0, l.grad_recv[q], rows);
  }
}

std::vector<torch::Tensor> MirrorExchange::zero_receipts(int c, std::int64_t width,
                                                         const torch::TensorOptions& options) const {
  const ChunkLists& l = lists_[static_cast<std::size_t>(c)];
  std::vector<torch::Tensor> zeros(l.grad_recv.size());
  for (std::size_t q = 0; q < zeros.size(); ++q)
    zeros[q] = torch::zeros({l.grad_recv[q].defined() ? l.grad_recv[q].numel() : 0, width}, options);
  return zeros;
}

}  // namespace loom::train
