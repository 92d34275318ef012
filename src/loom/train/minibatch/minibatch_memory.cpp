#include "loom/train/minibatch/minibatch_memory.hpp"

#include <algorithm>
#include <cmath>

#include "loom/feature/cache_policy.hpp"
#include "loom/feature/prefetch_buffer.hpp"
#include "loom/sample/epoch_plan.hpp"
#include "loom/sample/neighbor_sampler.hpp"
#include "loom/loader/cache_setup.hpp"
#include "loom/loader/minibatch_data_path.hpp"
#include "loom/loader/prefetch_setup.hpp"

namespace loom::train {

namespace {

constexpr std::int64_t kFloat = 4;
constexpr int kProbeBatches = 3;            // batches sampled to size the batches in flight
constexpr std::int64_t kExactChunk = 8192;  // exact_inference's chunk of destination nodes

// The rows and edges of one sampled batch, per layer (input layer first).
struct BatchShape {
  std::int64_t input_nodes = 0, seeds = 0;
  std::vector<std::int64_t> dst, edges;
};

BatchShape shape_of(const sample::SampledBatch& b) {
  BatchShape s{static_cast<std::int64_t>(b.input_nodes.size()), static_cast<std::int64_t>(b.seeds.size()), {}, {}};
  for (const auto& block : b.blocks) {
    s.dst.push_back(block.num_dst);
    s.edges.push_back(block.num_edges());
  }
  return s;
}

// How a batch holds its input rows: dense float32 rows of `dim` values, or, from a sparse store
// without a device tier (loader::BatchBuilder::sparse_rows), as a CSR of the
// store's mean entries a row (int32 offsets and columns, float32 values), which the first layer
// multiplies without widening.
struct InputRows {
  std::int64_t dim = 0;
  bool sparse = false;
  std::int64_t row_bytes = 0;  // in a batch
};

InputRows input_rows_of(const loader::TrainingData& data, bool dense_batches = false) {
  const feature::RowTable& rows = data.features;
  if (!rows.is_sparse() || dense_batches) return {data.feat_dim, false, data.feat_dim * kFloat};
  return {data.feat_dim, true, 4 + rows.entries_per_row() * 8};
}

// A training or evaluation batch's rows (exact inference reads sparse rows sparse whatever the options).
InputRows batch_rows_of(const MinibatchOptions& o, const loader::TrainingData& data) {
  return input_rows_of(data, o.data_path.device_rows > 0 || o.data_path.host_reads == loader::HostReads::kMapped);
}

// A prepared batch: input rows and ids, blocks (indptr, indices) and their message graphs (two
// int64 ids per edge), labels.
std::int64_t batch_bytes(const BatchShape& s, const InputRows& rows) {
  std::int64_t bytes = s.input_nodes * (rows.row_bytes + 8) + s.seeds * 8;
  for (std::size_t l = 0; l < s.dst.size(); ++l) bytes += (s.dst[l] + 1) * 8 + s.edges[l] * (4 + 16);
  return bytes;
}

// Forward values kept for backward: per layer the aggregated input (n_dst x in) and about five
// n_dst x out tensors (two linear outputs, their sum, activation, dropout); GAT adds attention
// values per edge and head. Backward frees them layer by layer while it holds one layer's
// gradients (n_dst x (in + 2 out)) at a time. Without gradients (evaluation): one layer at a time.
// A sparse first layer keeps its product of every input row (n_src x out) in place of the
// aggregated input, and its gradient is the weights' (in x out, twice: transposed and not).
std::int64_t activation_bytes(const BatchShape& s, const nn::GnnModel& model, const InputRows& rows, bool backward) {
  const std::int64_t heads =
      model.options().kind == nn::ModelKind::kGat ? std::max<std::int64_t>(1, model.options().heads) : 0;
  std::int64_t saved = 0, widest_layer = 0, widest_gradient = 0, in = rows.dim;
  for (std::size_t l = 0; l < s.dst.size(); ++l) {
    const std::int64_t out = model.layer_out_features(static_cast<int>(l));
    const bool sparse = l == 0 && rows.sparse;
    const std::int64_t kept = sparse ? s.input_nodes * out : s.dst[l] * in;
    const std::int64_t layer = kFloat * (kept + s.dst[l] * 5 * out + s.edges[l] * heads * 3);
    saved += layer;
    widest_layer = std::max(widest_layer, layer);
    widest_gradient =
        std::max(widest_gradient, kFloat * (sparse ? 2 * in * out + s.dst[l] * 2 * out : s.dst[l] * (in + 2 * out)));
    in = out;
  }
  return backward ? saved + widest_gradient : widest_layer;
}

BatchShape largest(const std::vector<BatchShape>& shapes, const InputRows& rows) {
  BatchShape best;
  for (const auto& s : shapes)
    if (batch_bytes(s, rows) > batch_bytes(best, rows)) best = s;
  return best;
}

// A superbatch waiting for its turns: its batches' blocks and their input rows in the group's
// dtype (BatchBuilder::fetch_group; as if no row were shared, an upper bound).
std::int64_t superbatch_bytes(const MinibatchOptions& o, const BatchShape& s, const loader::TrainingData& data) {
  if (o.data_path.superbatch <= 1) return 0;
  const std::int64_t held = loader::grouped_value_bytes(data.features.dtype());
  const InputRows dense{data.feat_dim, false, data.feat_dim * kFloat};  // a superbatch's rows are dense
  return o.data_path.superbatch * (batch_bytes(s, dense) - s.input_nodes * data.feat_dim * (kFloat - held));
}

// A few of the run's first training batches, sampled as training will sample them.
BatchShape probe_training_batch(const CheckedMinibatchOptions& checked, const loader::TrainingData& data) {
  if (data.train_ids.empty()) return {};
  const MinibatchOptions& o = *checked;
  const sample::NeighborSampler sampler(data.graph(), checked.loader().fanouts());
  const std::int64_t steps =
      sample::steps_per_epoch(std::array{static_cast<std::int64_t>(data.train_ids.size())}, o.batch_size);
  const auto plan = sample::plan_epoch(data.train_ids, std::min<std::int64_t>(steps, kProbeBatches), o.batch_size,
                                       o.run.seed, 0, data.rank);
  std::vector<BatchShape> shapes;
  for (const auto& step : plan) shapes.push_back(shape_of(sampler.sample(step.seeds, step.sample_seed)));
  return largest(shapes, batch_rows_of(o, data));
}

// A sampled evaluation batch (--eval-fanouts, --eval-batch-size) of this rank's validation nodes.
BatchShape probe_sampled_eval_batch(const CheckedMinibatchOptions& checked, const loader::TrainingData& data) {
  const auto& ids = data.valid_ids.empty() ? data.test_ids : data.valid_ids;
  if (ids.empty()) return {};
  const MinibatchOptions& o = *checked;
  const sample::NeighborSampler sampler(data.graph(), checked.loader().eval_fanouts());
  const auto n = std::min<std::int64_t>(static_cast<std::int64_t>(ids.size()), o.evaluation.batch_size);
  return shape_of(sampler.sample(std::span(ids).first(static_cast<std::size_t>(n)), o.run.seed));
}

// Exact layer-wise inference (evaluation.cpp): an output and an input copy of this rank's rows per
// layer, the logits and embeddings kept, and one chunk of destinations with their neighbours
// (sparse first-layer rows: never widened).
std::int64_t exact_inference_bytes(const loader::TrainingData& data, const nn::GnnModel& model) {
  std::int64_t widest = input_rows_of(data).sparse ? 0 : data.feat_dim, last = 0;
  for (int l = 0; l < model.num_layers(); ++l) widest = std::max(widest, model.layer_out_features(l));
  if (model.num_layers() > 1) last = model.layer_out_features(model.num_layers() - 2);
  std::int64_t chunk_inputs = 0, chunk_edges = 0;
  if (data.num_local > 0) {
    const auto one_hop = sample::NeighborSampler(data.graph(), sample::Fanouts::all_neighbours(1));
    std::vector<std::int64_t> dst(static_cast<std::size_t>(std::min(data.num_local, kExactChunk)));
    for (std::size_t i = 0; i < dst.size(); ++i) dst[i] = data.offset + static_cast<std::int64_t>(i);
    const auto block = one_hop.sample(dst, 0);
    chunk_inputs = static_cast<std::int64_t>(block.input_nodes.size());
    chunk_edges = block.num_sampled_edges;
  }
  const std::int64_t rows = data.num_local * kFloat * (2 * widest + last + data.num_classes);
  const std::int64_t chunk = chunk_inputs * (std::max(widest * kFloat, input_rows_of(data).row_bytes) * 3 + 8) +
                             chunk_edges * 20 + std::min(data.num_local, kExactChunk) * widest * kFloat * 5;
  return rows + chunk;
}

std::int64_t model_bytes(const MinibatchOptions& o, const nn::GnnModel& model, int ranks) {
  std::int64_t parameters = 0;
  for (const auto& p : model.parameters()) parameters += p.numel();
  // Weights, gradients, Adam's two moments; the all-reduce buffer; the best weights kept.
  const int copies = 4 + (ranks > 1 ? 1 : 0) + (o.evaluation.selection == Selection::kBestValid ? 1 : 0);
  return parameters * kFloat * copies;
}

std::int64_t cache_bytes(const MinibatchOptions& o, const loader::TrainingData& data) {
  if (o.cache.policy == feature::CachePolicy::kNone || data.book.num_parts() == 1) return 0;
  return loader::cache_rows(o.cache, data, data.rank) * loader::cache_row_bytes(data.features, o.cache.dtype);
}

std::int64_t prefetch_bytes(const MinibatchOptions& o, const loader::TrainingData& data) {
  if (o.prefetch.controller.kind == control::ControllerKind::kNone || data.book.num_parts() == 1) return 0;
  const std::int64_t capacity = feature::PrefetchBuffer::capacity_for(static_cast<std::int64_t>(data.halo_ids.size()),
                                                                      loader::effective_prefetch_options(o.prefetch));
  const std::int64_t remote = data.num_nodes() - data.num_local;
  const InputRows input = input_rows_of(data);  // a sparse store's buffer holds its rows' entries
  return capacity * ((input.sparse ? input.row_bytes + 48 : data.feat_dim * kFloat) + 16) + remote * 20;
}

// Own rows stay mapped from the part's store unless they are normalised (a copy) or pinned for
// a GPU (a copy in host memory).
Residence own_rows_residence(const MinibatchOptions& o) {
  return o.data_path.normalize_features == graph::FeatureNorm::kNone && o.run.rank.device.is_cpu()
             ? Residence::kMapped
             : Residence::kResident;
}

std::int64_t topology_bytes(const loader::TrainingData& data) {
  const auto& csr = data.graph();
  return static_cast<std::int64_t>(csr.indptr_array().nbytes() + csr.indices_array().nbytes());
}

}  // namespace

MemoryPlan plan_minibatch_memory(const CheckedMinibatchOptions& checked, const loader::TrainingData& data,
                                 const nn::GnnModel& model, std::int64_t held_bytes) {
  const MinibatchOptions& o = *checked;
  const int ranks = data.book.num_parts();
  const BatchShape train = probe_training_batch(checked, data);
  // Queued batches, one being prepared and the one training; with no pipeline the last is released
  // before the next is prepared.
  const std::int64_t batches = o.data_path.pipeline_depth == 0 ? 1 : o.data_path.pipeline_depth + 2;
  const InputRows rows = batch_rows_of(o, data);
  const std::int64_t in_flight = batches * batch_bytes(train, rows) + superbatch_bytes(o, train, data);
  const std::int64_t step = activation_bytes(train, model, rows, true);
  std::int64_t evaluation = 0;
  if (!o.run.eval.never() && o.evaluation.mode == EvalMode::kSampled) {
    const BatchShape eval = probe_sampled_eval_batch(checked, data);
    evaluation = batch_bytes(eval, rows) + activation_bytes(eval, model, rows, false);
  }
  if (o.evaluation.exact || !o.output.dir.empty() || (!o.run.eval.never() && o.evaluation.mode == EvalMode::kExact))
    evaluation = std::max(evaluation, exact_inference_bytes(data, model));
  // Training and evaluation take turns: the peak holds the larger of the two working sets.
  const bool training_peaks = in_flight + step >= evaluation;

  MemoryPlan plan;
  plan.parts = {
      {"runtime", held_bytes, ""},
      {"topology", topology_bytes(data), "", Residence::kMappedShared},
      {"own rows", data.features.bytes() + static_cast<std::int64_t>(data.labels.nbytes()), "", own_rows_residence(o)},
      {"static cache", cache_bytes(o, data), "--alpha or --cache-memory, --cache-dtype float16"},
      {"prefetch buffer", prefetch_bytes(o, data), "--prefetch"},
      {"model and optimizer", model_bytes(o, model, ranks), "--hidden, --layers", Residence::kResident, true},
      {"batches in flight", training_peaks ? in_flight : 0, "--batch-size, --fanouts, --pipeline-depth, --superbatch",
       Residence::kResident, true},
      {"activations", training_peaks ? step : 0, "--batch-size, --fanouts, --hidden", Residence::kResident, true},
      {"evaluation", training_peaks ? 0 : evaluation, "--eval-batch-size, --eval-fanouts, --no-exact-eval"},
  };
  return plan;
}

MemoryPlan plan_device_memory(const MemoryPlan& host_plan, const MinibatchOptions& o,
                              const loader::TrainingData& data) {
  const auto tier_rows =
      static_cast<double>(std::llround(o.data_path.device_rows * static_cast<double>(data.num_local)));
  const auto row_bytes =
      static_cast<double>(data.features.bytes()) / static_cast<double>(std::max<std::int64_t>(1, data.num_local));
  MemoryPlan plan;
  plan.parts.push_back({"device rows", static_cast<std::int64_t>(tier_rows * row_bytes), "--device-rows"});
  for (const auto& part : host_plan.parts)
    if (part.on_device) plan.parts.push_back(part);
  return plan;
}

}  // namespace loom::train
