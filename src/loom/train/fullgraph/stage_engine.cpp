#include "loom/train/fullgraph/stage_engine.hpp"

#include "loom/core/timer.hpp"
#include "loom/nn/runtime.hpp"
#include "loom/nn/device.hpp"

namespace loom::train {

namespace {

constexpr int kBackwardTag = 16000;  // + chunk; forward tags are the chunk numbers

torch::Tensor grad_or_zeros(const torch::Tensor& leaf) {
  return leaf.grad().defined() ? leaf.grad() : torch::zeros_like(leaf);
}

std::span<float> as_span(torch::Tensor& t) { return {t.data_ptr<float>(), static_cast<std::size_t>(t.numel())}; }

torch::Device device_of(nn::DeepGnn& model) {
  const auto parameters = model.parameters();
  return parameters.empty() ? torch::Device(torch::kCPU) : parameters.front().device();
}

}  // namespace

struct StageEngine::ChunkState {
  torch::Tensor h0_graph, h0;          // input part and the leaf the layers read
  std::vector<torch::Tensor> in, out;  // per layer of the stage: input leaves, outputs
  // Per layer: the gradient of the outside rows the layer read, caught by a hook on its input
  // during backward (so the forward copies of those rows need not be kept until then).
  std::vector<std::shared_ptr<torch::Tensor>> outside_grad;
  torch::Tensor top, loss;  // last stage: output leaf and loss
};

StageEngine::StageEngine(nn::DeepGnn& model, const FullGraphOptions& options, const FullGraphLayout& layout,
                         int layer_begin, int layer_end, const ChunkSet& chunks, const partition::PartitionBook& book,
                         const FullGraphData& data, const comm::Communicator& world,
                         const comm::Communicator& stage_comm, const PipelineThreads& threads)
    : model_(&model),
      options_(&options),
      layout_(layout),
      begin_(layer_begin),
      end_(layer_end),
      chunks_(&chunks),
      data_(&data),
      world_(&world),
      device_(device_of(model)),
      mirrors_(chunks, book, layout, stage_comm, device_),
      threads_(threads),
      current_threads_(threads.base()),
      graph_mode_(layout.mode == FullGraphMode::kGraph),
      needs_input_(layout.first_stage() || model.uses_initial_residual()),
      // With one chunk per way every cross-chunk gradient arrives before it is consumed.
      cross_scale_(graph_mode_ || layout.chunks == 1            ? 1.0
                   : options.cross_grad == CrossGrad::kUnbiased ? 2.0
                   : options.cross_grad == CrossGrad::kStale    ? 1.0
                                                                : 0.0),
      latest_cross_grads_(!graph_mode_ && layout.chunks > 1 && options.cross_grad == CrossGrad::kStale),
      carry_cross_grads_(graph_mode_ ? options.stale_halo : latest_cross_grads_) {
  const std::int64_t hidden = model.options().hidden;
  const int layers = end_ - begin_;
  const auto on_device = torch::TensorOptions().device(device_);
  if (!graph_mode_ || options.stale_halo)
    for (int i = 0; i < layers; ++i) history_.push_back(torch::zeros({chunks.num_slots(), hidden}, on_device));
  // Other ways' gradients for the chunk they process at the same step arrive in time under any estimate.
  if (cross_scale_ != 0 || mirrors_.active())
    for (int i = 0; i < layers; ++i) pending_.push_back(torch::zeros({chunks.own().size(), hidden}, on_device));
  if (latest_cross_grads_) {
    last_local_.resize(static_cast<std::size_t>(layers));
    last_mirror_.resize(static_cast<std::size_t>(layers));
    for (int i = 0; i < layers; ++i)
      for (const Chunk& ch : chunks.chunks()) {
        last_local_[static_cast<std::size_t>(i)].push_back(torch::zeros({ch.local_pos.numel(), hidden}, on_device));
        last_mirror_[static_cast<std::size_t>(i)].push_back(mirrors_.zero_receipts(ch.index, hidden, on_device));
      }
  }
  if (graph_mode_ && options.stale_halo) {
    async_comm_ = std::make_unique<comm::Communicator>(stage_comm.dup());
    async_mirrors_ = std::make_unique<MirrorExchange>(chunks, book, layout, *async_comm_, device_);
    background_ = std::make_unique<core::ThreadPool>(1);
    for (int i = 0; i < layers; ++i) late_grads_.push_back(torch::zeros({chunks.own().size(), hidden}, on_device));
  }
}

StageEngine::~StageEngine() {
  for (auto& f : in_flight_)
    if (f.valid()) f.wait();
}

torch::Tensor StageEngine::receive(int c, int from_stage, int tag, comm::Channel channel, StageCounts& counts) const {
  auto t = torch::empty({chunks_->chunk(c).size(), model_->options().hidden});
  core::Timer wait;
  world_->irecv(as_span(t), layout_.rank_of(from_stage, layout_.way), tag, channel).wait_idle();
  counts.bubble_seconds += wait.seconds();
  return nn::to_device(t, device_, *world_);
}

void StageEngine::use_threads(int threads) {
  if (threads == current_threads_) return;
  nn::set_cpu_threads(threads);
  current_threads_ = threads;
}

void StageEngine::wait_background(StageCounts& counts) {
  core::Timer wait;
  for (auto& f : in_flight_) f.get();
  in_flight_.clear();
  counts.exchange_seconds += wait.seconds();
}

void StageEngine::forward_chunk(int c, bool train, bool refresh, ChunkState& st, StageCounts& counts,
                                std::vector<std::pair<torch::Tensor, comm::Request>>& sends) {
  const Chunk& ch = chunks_->chunk(c);
  const ChunkRows& rows = data_->chunks[static_cast<std::size_t>(c)];
  const bool stale = graph_mode_ && options_->stale_halo;
  if (needs_input_) {
    st.h0_graph = model_->input(rows.features);
    st.h0 = train ? st.h0_graph.detach().requires_grad_() : st.h0_graph;
  }
  torch::Tensor a;
  if (layout_.first_stage()) {
    a = st.h0;
  } else {
    a = receive(c, layout_.stage - 1, c, comm::Channel::activations, counts);
    if (train) a.requires_grad_();
  }
  const torch::Tensor h0 = model_->uses_initial_residual() ? st.h0 : torch::Tensor();
  torch::Tensor out;
  for (int l = begin_; l < end_; ++l) {
    const std::size_t i = static_cast<std::size_t>(l - begin_);
    if (i > 0) a = train ? out.detach().requires_grad_() : out;
    torch::Tensor buffer =
        history_.empty() ? torch::empty({chunks_->num_slots(), a.size(1)}, a.options()) : history_[i];
    if ((graph_mode_ && !stale) || (!graph_mode_ && refresh)) {
      buffer.slice(0, ch.slot_begin, ch.slot_begin + ch.size()).copy_(a.detach());
      core::Timer t;
      mirrors_.exchange_values(c, a.detach(), buffer);
      counts.exchange_seconds += t.seconds();
    }
    torch::Tensor o = buffer.index_select(0, ch.outside_slots);
    if (stale && train) {
      in_flight_.push_back(background_->submit([this, c, values = a.detach(), target = history_[i]]() mutable {
        async_mirrors_->exchange_values(c, values, target);
      }));
    }
    const torch::Tensor x = torch::cat({a, o});
    if (train) {
      auto grad = std::make_shared<torch::Tensor>();
      x.register_hook([grad, own = a.size(0)](const torch::Tensor& g) { *grad = g.slice(0, own); });
      st.outside_grad.push_back(std::move(grad));
    }
    out = model_->layer(l, ch.graph, x, h0);
    if (train) {
      st.in.push_back(a);
      st.out.push_back(out);
    }
  }
  finish_forward(c, out, train, st, counts, sends);
}

void StageEngine::finish_forward(int c, const torch::Tensor& out, bool train, ChunkState& st, StageCounts& counts,
                                 std::vector<std::pair<torch::Tensor, comm::Request>>& sends) {
  const ChunkRows& rows = data_->chunks[static_cast<std::size_t>(c)];
  if (layout_.last_stage()) {
    st.top = train ? out.detach().requires_grad_() : out;
    const auto logits = model_->output(st.top);
    const bool multi = data_->scoring == scores::ScoreKind::kMicroF1;
    if (rows.train.numel() > 0) {
      const auto lt = logits.index_select(0, rows.train), yt = rows.labels.index_select(0, rows.train);
      const auto loss = multi ? torch::binary_cross_entropy_with_logits(lt, yt, {}, {}, at::Reduction::Sum) /
                                    static_cast<double>(data_->num_train * data_->num_classes)
                              : torch::nn::functional::cross_entropy(
                                    lt, yt, torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kSum)) /
                                    static_cast<double>(data_->num_train);
      counts.loss += loss.item<double>();
      counts.train += scores::count_scores(lt.detach(), yt, data_->scoring);
      if (train) st.loss = loss;
    }
    if (!train) {
      counts.valid += scores::count_scores(logits.index_select(0, rows.valid), rows.labels.index_select(0, rows.valid),
                                           data_->scoring);
      counts.test += scores::count_scores(logits.index_select(0, rows.test), rows.labels.index_select(0, rows.test),
                                          data_->scoring);
    }
  } else {
    auto payload = nn::to_host(out.detach(), *world_).contiguous();
    auto request = world_->isend(std::span<const float>(as_span(payload)),
                                 layout_.rank_of(layout_.stage + 1, layout_.way), c, comm::Channel::activations);
    sends.emplace_back(std::move(payload), std::move(request));
  }
}

void StageEngine::backward_chunk(int c, ChunkState& st, StageCounts& counts,
                                 std::vector<std::pair<torch::Tensor, comm::Request>>& sends) {
  const Chunk& ch = chunks_->chunk(c);
  const bool stale = graph_mode_ && options_->stale_halo;
  torch::Tensor g;
  if (layout_.last_stage()) {
    if (st.loss.defined()) st.loss.backward();
    g = grad_or_zeros(st.top);
  } else {
    g = receive(c, layout_.stage + 1, kBackwardTag + c, comm::Channel::gradients, counts);
  }
  for (int i = end_ - begin_ - 1; i >= 0; --i) {
    const auto u = static_cast<std::size_t>(i);
    st.out[u].backward(g);
    if (!pending_.empty()) {
      const torch::Tensor& caught = *st.outside_grad[u];
      const torch::Tensor og =
          caught.defined() ? caught : torch::zeros({ch.outside_slots.numel(), g.size(1)}, g.options());
      if (latest_cross_grads_) {
        // Replace what this chunk sent last epoch: pending_ holds every chunk's latest contributions.
        torch::Tensor& last = last_local_[u][static_cast<std::size_t>(c)];
        const torch::Tensor fresh = og.index_select(0, ch.local_pos);
        if (fresh.numel() > 0) pending_[u].index_add_(0, ch.local_slots, fresh - last);
        last = fresh;
      } else if (ch.local_pos.numel() > 0 && cross_scale_ != 0) {
        pending_[u].index_add_(0, ch.local_slots, og.index_select(0, ch.local_pos) * cross_scale_);
      }
      if (stale) {
        in_flight_.push_back(background_->submit(
            [this, c, og, target = late_grads_[u]]() mutable { async_mirrors_->exchange_grads(c, og, target, 1.0); }));
      } else {
        core::Timer t;
        mirrors_.exchange_grads(c, og, pending_[u], cross_scale_,
                                latest_cross_grads_ ? &last_mirror_[u][static_cast<std::size_t>(c)] : nullptr);
        counts.exchange_seconds += t.seconds();
      }
    }
    g = grad_or_zeros(st.in[u]);
    if (!pending_.empty()) {
      auto mine = pending_[u].slice(0, ch.slot_begin, ch.slot_begin + ch.size());
      g = g + mine;
      if (!latest_cross_grads_) mine.zero_();
    }
  }
  if (layout_.first_stage()) {
    st.h0_graph.backward(g);
  } else {
    auto payload = nn::to_host(g, *world_).contiguous();
    auto request =
        world_->isend(std::span<const float>(as_span(payload)), layout_.rank_of(layout_.stage - 1, layout_.way),
                      kBackwardTag + c, comm::Channel::gradients);
    sends.emplace_back(std::move(payload), std::move(request));
    if (needs_input_ && st.h0.grad().defined()) st.h0_graph.backward(st.h0.grad());
  }
  st = ChunkState{};
}

StageCounts StageEngine::train_epoch(std::span<const int> order, bool refresh_history) {
  StageCounts counts;
  const bool stale = graph_mode_ && options_->stale_halo;
  if (!carry_cross_grads_)
    for (auto& p : pending_) p.zero_();
  model_->train();
  std::vector<ChunkState> states(chunks_->chunks().size());
  std::vector<std::pair<torch::Tensor, comm::Request>> sends;
  const int n = static_cast<int>(order.size());
  for (int k = 0; k < n; ++k) {
    const int c = order[static_cast<std::size_t>(k)];
    use_threads(threads_.forward(k));
    forward_chunk(c, true, refresh_history, states[static_cast<std::size_t>(c)], counts, sends);
  }
  for (int k = 0; k < n; ++k) {
    const int c = order[static_cast<std::size_t>(n - 1 - k)];
    use_threads(threads_.backward(k));
    backward_chunk(c, states[static_cast<std::size_t>(c)], counts, sends);
  }
  use_threads(threads_.base());
  core::Timer wait;
  for (auto& s : sends) s.second.wait_idle();
  counts.bubble_seconds += wait.seconds();
  if (stale) {
    wait_background(counts);
    for (std::size_t i = 0; i < late_grads_.size(); ++i) {
      pending_[i].copy_(late_grads_[i]);
      late_grads_[i].zero_();
    }
  }
  return counts;
}

CheckpointTensors StageEngine::carried_tensors() const {
  CheckpointTensors carried;
  for (std::size_t i = 0; i < history_.size(); ++i) carried["history_" + std::to_string(begin_ + i)] = history_[i];
  if (carry_cross_grads_)
    for (std::size_t i = 0; i < pending_.size(); ++i) carried["cross_grad_" + std::to_string(begin_ + i)] = pending_[i];
  for (std::size_t i = 0; i < last_local_.size(); ++i)
    for (std::size_t c = 0; c < last_local_[i].size(); ++c) {
      const std::string key = std::to_string(begin_ + i) + "_" + std::to_string(c);
      carried["cross_sent_" + key] = last_local_[i][c];
      for (std::size_t q = 0; q < last_mirror_[i][c].size(); ++q)
        carried["cross_received_" + key + "_" + std::to_string(q)] = last_mirror_[i][c][q];
    }
  return carried;
}

StageCounts StageEngine::evaluate(ChunkResults* results) {
  torch::NoGradGuard no_grad;
  model_->eval();
  use_threads(threads_.evaluation());
  StageCounts counts;
  const std::size_t n = chunks_->chunks().size();
  std::vector<torch::Tensor> a(n), h0(n);
  for (std::size_t c = 0; c < n; ++c) {
    if (needs_input_) h0[c] = model_->input(data_->chunks[c].features);
    a[c] = layout_.first_stage() ? h0[c]
                                 : receive(static_cast<int>(c), layout_.stage - 1, static_cast<int>(c),
                                           comm::Channel::activations, counts);
  }
  const bool residual = model_->uses_initial_residual();
  torch::Tensor current =
      torch::empty({chunks_->num_slots(), model_->options().hidden}, torch::TensorOptions().device(device_));
  for (int l = begin_; l < end_; ++l) {
    for (std::size_t c = 0; c < n; ++c) {
      const Chunk& ch = chunks_->chunk(static_cast<int>(c));
      current.slice(0, ch.slot_begin, ch.slot_begin + ch.size()).copy_(a[c]);
      mirrors_.exchange_values(static_cast<int>(c), a[c], current);
    }
    for (std::size_t c = 0; c < n; ++c) {
      const Chunk& ch = chunks_->chunk(static_cast<int>(c));
      a[c] = model_->layer(l, ch.graph, torch::cat({a[c], current.index_select(0, ch.outside_slots)}),
                           residual ? h0[c] : torch::Tensor());
    }
  }
  std::vector<std::pair<torch::Tensor, comm::Request>> sends;
  for (std::size_t c = 0; c < n; ++c) {
    ChunkState unused;
    finish_forward(static_cast<int>(c), a[c], false, unused, counts, sends);
  }
  for (auto& s : sends) s.second.wait();
  if (results && layout_.last_stage()) {
    results->hidden = a;
    results->logits.clear();
    for (const auto& hidden : a) results->logits.push_back(model_->output(hidden));
  }
  use_threads(threads_.base());
  model_->train();
  return counts;
}

}  // namespace loom::train
