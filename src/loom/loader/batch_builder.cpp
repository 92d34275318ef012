#include "loom/loader/batch_builder.hpp"

#include <algorithm>

#include "loom/format/float_rows.hpp"
#include "loom/format/half.hpp"
#include "loom/core/parallel.hpp"
#include "loom/core/timer.hpp"
#include "loom/nn/device.hpp"
#include "loom/nn/csr_rows.hpp"
#include "loom/sample/dropped_pairs.hpp"

namespace loom::loader {

torch::Tensor BatchBuilder::labels(std::span<const std::int64_t> seeds) const {
  const auto n = static_cast<std::int64_t>(seeds.size());
  const std::int64_t offset = data_->offset;
  const auto host = torch::TensorOptions().pinned_memory(pinned());
  if (seed_labels_ == SeedLabels::kNone) return torch::empty({0}, host.dtype(torch::kInt64));
  if (data_->scoring == scores::ScoreKind::kMicroF1) {
    const std::int64_t c = data_->num_classes;
    const auto all = data_->labels.span<std::uint8_t>();
    auto y = torch::empty({n, c}, host.dtype(torch::kFloat32));
    float* out = y.data_ptr<float>();
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = 0; j < c; ++j) out[i * c + j] = all[(seeds[i] - offset) * c + j];
    return y;
  }
  const auto all = data_->labels.span<std::int64_t>();
  auto y = torch::empty({n}, host.dtype(torch::kInt64));
  auto* out = y.data_ptr<std::int64_t>();
  for (std::int64_t i = 0; i < n; ++i) out[i] = all[seeds[i] - offset];
  return y;
}

void PreparedBatch::wait_for_copies() const {
  std::vector<torch::Tensor> used = nn::storage_parts(x);
  used.push_back(y);
  for (const auto& graph : graphs)
    for (torch::Tensor& t : graph.tensors()) used.push_back(std::move(t));
  copies.wait(used);
}

PreparedBatch BatchBuilder::build(std::span<const std::int64_t> seeds, std::uint64_t sample_seed) const {
  PreparedBatch b = sample(seeds, sample_seed);
  fetch(b);
  b.wait_for_copies();
  return b;
}

PreparedBatch BatchBuilder::sample(std::span<const std::int64_t> seeds, std::uint64_t sample_seed,
                                   std::span<const std::int64_t> dropped_pairs) const {
  PreparedBatch b;
  core::Timer timer;
  b.sampled = sampler_->sample(seeds, sample_seed);
  sample::drop_pair_edges(b.sampled, dropped_pairs);
  b.graphs.reserve(b.sampled.blocks.size());
  const auto& csr = data_->graph();
  for (const auto& block : b.sampled.blocks) {
    auto graph = nn::MessageGraph::from_block(block, pinned());
    if (whole_graph_gcn_norm_) graph = graph.with_gcn_norm(nn::sampled_gcn_norm(csr, block, b.sampled.input_nodes));
    b.graphs.push_back(std::move(graph));
  }
  b.sample_seconds = timer.seconds();
  return b;
}

bool BatchBuilder::sparse_rows() const {
  return features_->gathers_sparse() && (device_ == nullptr || (device_->tier().empty() && !device_->maps_own_rows()));
}

void BatchBuilder::fetch(PreparedBatch& b, std::span<const std::span<const std::int64_t>> upcoming) const {
  const auto rows = static_cast<std::int64_t>(b.sampled.input_nodes.size());
  const auto& seeds = b.sampled.seeds;
  if (sparse_rows()) {
    graph::SparseRows gathered;
    b.fetch = features_->gather_sparse(b.sampled.input_nodes, gathered, upcoming);
    const torch::Tensor host = nn::csr_tensor(std::move(gathered), features_->dim(), pinned());
    if (device_ == nullptr) {
      b.x = host;
      b.y = labels(seeds);
    } else {
      copy_to_device(b, host, feature::TierRows{}, labels(seeds));
    }
    return;
  }
  if (device_ == nullptr) {
    b.x = torch::empty({rows, features_->dim()}, torch::kFloat32);
    b.fetch = features_->gather(b.sampled.input_nodes, b.x.data_ptr<float>(), nullptr, upcoming);
    b.y = labels(seeds);
    return;
  }
  const torch::Tensor host = device_->host_buffer(rows, features_->dim());
  feature::TierRows tier_rows;
  b.fetch = features_->gather(b.sampled.input_nodes, host.data_ptr<float>(), &tier_rows, upcoming);
  copy_to_device(b, host, tier_rows, labels(seeds));
}

void BatchBuilder::copy_to_device(PreparedBatch& b, const torch::Tensor& host, const feature::TierRows& tier_rows,
                                  const torch::Tensor& y) const {
  core::Timer timer;
  b.copies = device_->copy_stream().run([&] {
    b.x = device_->assemble(host, tier_rows);
    for (auto& graph : b.graphs) graph = device_->to_device(graph);
    b.y = device_->to_device(y);
  });
  b.copy_seconds = timer.seconds();
}

namespace {

// Every input id of `batches`, once each, ascending.
std::vector<std::int64_t> distinct_input_ids(std::span<const PreparedBatch> batches) {
  std::vector<std::int64_t> ids;
  for (const PreparedBatch& b : batches)
    ids.insert(ids.end(), b.sampled.input_nodes.begin(), b.sampled.input_nodes.end());
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

// Where each of `ids` lies in `sorted` (which holds them all).
torch::Tensor positions_in(std::span<const std::int64_t> sorted, std::span<const std::int64_t> ids) {
  auto positions = torch::empty({static_cast<std::int64_t>(ids.size())}, torch::kInt64);
  auto* out = positions.data_ptr<std::int64_t>();
  core::parallel_for(
      static_cast<std::int64_t>(ids.size()),
      [&](std::int64_t i) { out[i] = std::lower_bound(sorted.begin(), sorted.end(), ids[i]) - sorted.begin(); }, 4096);
  return positions;
}

// rows[positions] as float32, widened row by row (no float16 copy of the batch on the way).
torch::Tensor widened_rows(const torch::Tensor& rows, const torch::Tensor& positions) {
  if (rows.scalar_type() == torch::kFloat32) return rows.index_select(0, positions);
  const std::int64_t n = positions.size(0), dim = rows.size(1);
  auto x = torch::empty({n, dim}, torch::kFloat32);
  const auto* from = static_cast<const char*>(rows.data_ptr());
  const auto* at = positions.data_ptr<std::int64_t>();
  float* out = x.data_ptr<float>();
  const auto row_bytes = static_cast<std::size_t>(dim) * sizeof(format::Half);
  core::parallel_for(
      n,
      [&](std::int64_t i) {
        format::widen_floats(from + at[i] * row_bytes, format::DType::kFloat16,
                             {out + i * dim, static_cast<std::size_t>(dim)});
      },
      1024);
  return x;
}

}  // namespace

void BatchBuilder::fetch_group(std::span<PreparedBatch> batches) const {
  LOOM_CHECK(features_->buffer() == nullptr && (device_ == nullptr || device_->tier().empty()),
             "a superbatch is fetched without a prefetch buffer or a device tier");
  if (batches.empty()) return;
  const std::vector<std::int64_t> ids = distinct_input_ids(batches);
  const auto rows = static_cast<std::int64_t>(ids.size());
  torch::Tensor x;
  if (grouped_value_bytes(features_->fetcher().local().dtype()) == 2) {
    x = torch::empty({rows, features_->dim()}, torch::kHalf);
    batches.front().fetch = features_->gather(ids, static_cast<format::Half*>(x.data_ptr()));
  } else {
    x = torch::empty({rows, features_->dim()}, torch::kFloat32);
    batches.front().fetch = features_->gather(ids, x.data_ptr<float>());
  }
  for (PreparedBatch& b : batches) {
    b.x = x;
    b.group_positions = positions_in(ids, b.sampled.input_nodes);
    b.y = labels(b.sampled.seeds);
  }
}

void BatchBuilder::finish_grouped(PreparedBatch& b) const {
  const torch::Tensor host = widened_rows(b.x, b.group_positions);
  b.group_positions = torch::Tensor();
  if (device_ == nullptr) {
    b.x = host;
    return;
  }
  copy_to_device(b, host, feature::TierRows{}, b.y);
}

}  // namespace loom::loader
