#include "loom/train/minibatch/evaluation.hpp"

#include <algorithm>

#include "loom/core/rng.hpp"
#include "loom/feature/feature_source.hpp"
#include "loom/nn/csr_rows.hpp"
#include "loom/nn/device.hpp"

namespace loom::train {

namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// Collective: the rows of `ids` as the layer takes them (sparse rows of a sparse table kept sparse).
torch::Tensor input_rows(const feature::RemoteFetcher& fetcher, std::span<const std::int64_t> ids) {
  if (fetcher.local().is_sparse()) {
    graph::SparseRows rows;
    feature::FeatureSource(fetcher).gather_sparse(ids, rows);
    return nn::csr_tensor(std::move(rows), fetcher.dim());
  }
  auto x = torch::empty({static_cast<std::int64_t>(ids.size()), fetcher.dim()}, torch::kFloat32);
  fetcher.fetch(ids, x.data_ptr<float>());
  return x;
}

}  // namespace

scores::ScoreCounts sampled_scores(nn::GnnModel& model, const loader::BatchBuilder& builder,
                                   std::span<const std::int64_t> ids, std::int64_t batch_size, std::uint64_t seed,
                                   const comm::Communicator& comm, scores::ScoreKind scoring) {
  torch::NoGradGuard no_grad;
  const bool was_training = model.is_training();
  model.eval();
  const std::int64_t n = static_cast<std::int64_t>(ids.size());
  const std::int64_t steps = comm.allreduce_max(ceil_div(n, batch_size), comm::Channel::control);
  scores::ScoreCounts counts;
  for (std::int64_t s = 0; s < steps; ++s) {
    const std::int64_t begin = std::min(n, s * batch_size), end = std::min(n, begin + batch_size);
    const auto seeds = ids.subspan(begin, end - begin);
    loader::PreparedBatch b = builder.build(seeds, core::mix_seed(seed, static_cast<std::uint64_t>(s)));
    if (seeds.empty()) continue;
    counts += scores::count_scores(model.forward(b.x, b.graphs), b.y, scoring);
  }
  model.train(was_training);
  return scores::sum_over_ranks(counts, comm);
}

ExactInference exact_inference(nn::GnnModel& model, const loader::TrainingData& data, const comm::Communicator& comm,
                               std::int64_t chunk_size) {
  torch::NoGradGuard no_grad;
  const bool was_training = model.is_training();
  model.eval();
  const auto& csr = data.graph();
  const auto one_hop = sample::NeighborSampler(csr, sample::Fanouts::all_neighbours(1));
  const bool gcn = model.options().kind == nn::ModelKind::kGcn;
  const std::int64_t n = data.num_local;
  const std::int64_t chunks = comm.allreduce_max(ceil_div(n, chunk_size), comm::Channel::control);
  ExactInference result;
  const auto parameters = model.parameters();
  const torch::Device device = parameters.empty() ? torch::Device(torch::kCPU) : parameters.front().device();
  feature::RowTable current = data.features;
  for (int layer = 0; layer < model.num_layers(); ++layer) {
    feature::RemoteFetcher fetcher(comm, data.book, current, feature::WireDType::kFloat32);
    const std::int64_t width = model.layer_out_features(layer);
    auto out = torch::empty({n, width}, torch::kFloat32);
    for (std::int64_t c = 0; c < chunks; ++c) {
      const std::int64_t begin = std::min(n, c * chunk_size), end = std::min(n, begin + chunk_size);
      std::vector<std::int64_t> dst(end - begin);
      for (std::int64_t i = begin; i < end; ++i) dst[i - begin] = data.offset + i;
      sample::SampledBatch block;
      if (!dst.empty()) block = one_hop.sample(dst, 0);
      const torch::Tensor x = input_rows(fetcher, block.input_nodes);
      if (dst.empty()) continue;
      auto graph = nn::MessageGraph::from_block(block.blocks.front());
      if (gcn) graph = graph.with_gcn_norm(nn::global_gcn_norm(csr, block.input_nodes, dst));
      out.slice(0, begin, end)
          .copy_(model.forward_layer(layer, graph.to(device), nn::with_parts_moved(x, [&](const torch::Tensor& part) {
                                       return part.to(device);
                                     })));
    }
    if (layer + 1 == model.num_layers()) {
      result.logits = out;
    } else {
      if (layer + 2 == model.num_layers()) result.embeddings = out;
      current = feature::RowTable::owned(std::vector<float>(out.data_ptr<float>(), out.data_ptr<float>() + out.numel()),
                                         width);
    }
  }
  model.train(was_training);
  return result;
}

scores::ScoreCounts exact_scores(const ExactInference& result, const loader::BatchBuilder& builder,
                                 const loader::TrainingData& data, std::span<const std::int64_t> ids,
                                 const comm::Communicator& comm) {
  std::vector<std::int64_t> rows(ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i) rows[i] = ids[i] - data.offset;
  const auto index = torch::from_blob(rows.data(), {static_cast<std::int64_t>(rows.size())}, torch::kInt64);
  scores::ScoreCounts counts =
      scores::count_scores(result.logits.index_select(0, index), builder.labels(ids), data.scoring);
  return scores::sum_over_ranks(counts, comm);
}

}  // namespace loom::train
