#include "loom/train/memory_plan.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "loom/core/error.hpp"
#include "loom/core/memory.hpp"
#include "loom/feature/cache_policy.hpp"
#include "loom/feature/prefetch_buffer.hpp"
#include "loom/graph/info.hpp"
#include "loom/sample/epoch_plan.hpp"
#include "loom/sample/neighbor_sampler.hpp"
#include "loom/train/minibatch_data_path.hpp"
#include "loom/train/prefetch_setup.hpp"

namespace loom::train {

namespace {

constexpr std::int64_t kFloat = 4;
constexpr int kProbeBatches = 3;            // batches sampled to size the batches in flight
constexpr std::int64_t kExactChunk = 8192;  // exact_inference's chunk of destination nodes

std::string human(std::int64_t bytes) { return graph::human_bytes(static_cast<double>(bytes)); }

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

// A prepared batch: input rows and ids, blocks (indptr, indices) and their message graphs (two
// int64 ids per edge), labels.
std::int64_t batch_bytes(const BatchShape& s, std::int64_t dim) {
  std::int64_t bytes = s.input_nodes * (dim * kFloat + 8) + s.seeds * 8;
  for (std::size_t l = 0; l < s.dst.size(); ++l) bytes += (s.dst[l] + 1) * 8 + s.edges[l] * (4 + 16);
  return bytes;
}

// Forward values kept for backward: per layer the aggregated input (n_dst x in) and about five
// n_dst x out tensors (two linear outputs, their sum, activation, dropout); GAT adds attention
// values per edge and head. Backward frees them layer by layer while it holds one layer's
// gradients (n_dst x (in + 2 out)) at a time. Without gradients (evaluation): one layer at a time.
std::int64_t activation_bytes(const BatchShape& s, const nn::GnnModel& model, std::int64_t dim, bool backward) {
  const std::int64_t heads =
      model.options().kind == nn::ModelKind::kGat ? std::max<std::int64_t>(1, model.options().heads) : 0;
  std::int64_t saved = 0, widest_layer = 0, widest_gradient = 0, in = dim;
  for (std::size_t l = 0; l < s.dst.size(); ++l) {
    const std::int64_t out = model.layer_out_features(static_cast<int>(l));
    const std::int64_t layer = kFloat * (s.dst[l] * (in + 5 * out) + s.edges[l] * heads * 3);
    saved += layer;
    widest_layer = std::max(widest_layer, layer);
    widest_gradient = std::max(widest_gradient, kFloat * s.dst[l] * (in + 2 * out));
    in = out;
  }
  return backward ? saved + widest_gradient : widest_layer;
}

BatchShape largest(const std::vector<BatchShape>& shapes, std::int64_t dim) {
  BatchShape best;
  for (const auto& s : shapes)
    if (batch_bytes(s, dim) > batch_bytes(best, dim)) best = s;
  return best;
}

// A superbatch waiting for its turns: its batches' blocks and their input rows in the group's
// dtype (BatchBuilder::fetch_group; as if no row were shared, an upper bound).
std::int64_t superbatch_bytes(const MinibatchOptions& o, const BatchShape& s, const TrainingData& data) {
  if (o.superbatch <= 1) return 0;
  const std::int64_t held = grouped_value_bytes(data.features.dtype());
  return o.superbatch * (batch_bytes(s, data.feat_dim) - s.input_nodes * data.feat_dim * (kFloat - held));
}

// A few of the run's first training batches, sampled as training will sample them.
BatchShape probe_training_batch(const MinibatchOptions& o, const TrainingData& data) {
  if (data.train_ids.empty()) return {};
  const sample::NeighborSampler sampler(data.graph(), o.fanouts);
  const std::int64_t steps =
      sample::steps_per_epoch(std::array{static_cast<std::int64_t>(data.train_ids.size())}, o.batch_size);
  const auto plan = sample::plan_epoch(data.train_ids, std::min<std::int64_t>(steps, kProbeBatches), o.batch_size,
                                       o.run.seed, 0, data.rank);
  std::vector<BatchShape> shapes;
  for (const auto& step : plan) shapes.push_back(shape_of(sampler.sample(step.seeds, step.sample_seed)));
  return largest(shapes, data.feat_dim);
}

// A sampled evaluation batch (--eval-fanouts, --eval-batch-size) of this rank's validation nodes.
BatchShape probe_sampled_eval_batch(const MinibatchOptions& o, const TrainingData& data) {
  const auto& ids = data.valid_ids.empty() ? data.test_ids : data.valid_ids;
  if (ids.empty()) return {};
  LOOM_CHECK(static_cast<int>(o.eval_fanouts.size()) == o.model.num_layers,
             "memory plan: eval fanouts not one per layer (options not from checked_minibatch_options)");
  const sample::NeighborSampler sampler(data.graph(), o.eval_fanouts);
  const auto n = std::min<std::int64_t>(static_cast<std::int64_t>(ids.size()), o.eval_batch_size);
  return shape_of(sampler.sample(std::span(ids).first(static_cast<std::size_t>(n)), o.run.seed));
}

// Exact layer-wise inference (evaluation.cpp): an output and an input copy of this rank's rows per
// layer, the logits and embeddings kept, and one chunk of destinations with their neighbours.
std::int64_t exact_inference_bytes(const TrainingData& data, const nn::GnnModel& model) {
  std::int64_t widest = data.feat_dim, last = 0;
  for (int l = 0; l < model.num_layers(); ++l) widest = std::max(widest, model.layer_out_features(l));
  if (model.num_layers() > 1) last = model.layer_out_features(model.num_layers() - 2);
  std::int64_t chunk_inputs = 0, chunk_edges = 0;
  if (data.num_local > 0) {
    const auto one_hop = sample::NeighborSampler::full_neighborhood(data.graph(), 1);
    std::vector<std::int64_t> dst(static_cast<std::size_t>(std::min(data.num_local, kExactChunk)));
    for (std::size_t i = 0; i < dst.size(); ++i) dst[i] = data.offset + static_cast<std::int64_t>(i);
    const auto block = one_hop.sample(dst, 0);
    chunk_inputs = static_cast<std::int64_t>(block.input_nodes.size());
    chunk_edges = block.num_sampled_edges;
  }
  const std::int64_t rows = data.num_local * kFloat * (2 * widest + last + data.num_classes);
  const std::int64_t chunk = chunk_inputs * (widest * kFloat * 3 + 8) + chunk_edges * 20 +
                             std::min(data.num_local, kExactChunk) * widest * kFloat * 5;
  return rows + chunk;
}

std::int64_t model_bytes(const MinibatchOptions& o, const nn::GnnModel& model, int ranks) {
  std::int64_t parameters = 0;
  for (const auto& p : model.parameters()) parameters += p.numel();
  // Weights, gradients, Adam's two moments; the all-reduce buffer; the best weights kept.
  const int copies = 4 + (ranks > 1 ? 1 : 0) + (o.selection == Selection::kBestValid ? 1 : 0);
  return parameters * kFloat * copies;
}

std::int64_t cache_bytes(const MinibatchOptions& o, const TrainingData& data) {
  if (o.cache == feature::CachePolicy::kNone || o.alpha <= 0 || data.book.num_parts() == 1) return 0;
  const std::int64_t rows = feature::cache_capacity(o.alpha, data.book, data.rank);
  return rows * (data.feat_dim * static_cast<std::int64_t>(core::dtype_size(o.cache_dtype)) + 8 + 16);
}

std::int64_t prefetch_bytes(const MinibatchOptions& o, const TrainingData& data) {
  if (o.control.kind == control::ControllerKind::kNone || data.book.num_parts() == 1) return 0;
  const std::int64_t capacity = feature::PrefetchBuffer::capacity_for(static_cast<std::int64_t>(data.halo_ids.size()),
                                                                      effective_prefetch_options(o));
  const std::int64_t remote = data.num_nodes() - data.num_local;
  return capacity * (data.feat_dim * kFloat + 16) + remote * 20;
}

// Own rows stay mapped from the part's store unless they are normalised (a copy) or pinned for
// a GPU (a copy in host memory).
Residence own_rows_residence(const MinibatchOptions& o) {
  return o.normalize_features == graph::FeatureNorm::kNone && o.run.device.is_cpu() ? Residence::kMapped
                                                                                    : Residence::kResident;
}

std::int64_t topology_bytes(const TrainingData& data) {
  const auto& csr = data.graph();
  return static_cast<std::int64_t>(csr.indptr_array().nbytes() + csr.indices_array().nbytes());
}

}  // namespace

std::int64_t MemoryPlan::total() const {
  std::int64_t sum = 0;
  for (const auto& p : parts) sum += p.bytes;
  return sum;
}

std::int64_t MemoryPlan::resident() const {
  std::int64_t sum = 0;
  for (const auto& p : parts)
    if (p.residence == Residence::kResident) sum += p.bytes;
  return sum;
}

nlohmann::json MemoryPlan::record() const {
  nlohmann::json by_name = nlohmann::json::object(), mapped = nlohmann::json::array();
  for (const auto& p : parts) {
    by_name[p.name] = p.bytes;
    if (p.residence != Residence::kResident) mapped.push_back(p.name);
  }
  return {{"event", "memory"},
          {"estimate_bytes", total()},
          {"resident_bytes", resident()},
          {"mapped_bytes", total() - resident()},
          {"parts", by_name},
          {"mapped_parts", mapped}};
}

MemoryPlan plan_minibatch_memory(const MinibatchOptions& o, const TrainingData& data, const nn::GnnModel& model,
                                 std::int64_t held_bytes) {
  const int ranks = data.book.num_parts();
  const BatchShape train = probe_training_batch(o, data);
  // Queued batches, one being prepared and the one training; with no pipeline the last is released
  // before the next is prepared.
  const std::int64_t batches = o.pipeline_depth == 0 ? 1 : o.pipeline_depth + 2;
  const std::int64_t in_flight = batches * batch_bytes(train, data.feat_dim) + superbatch_bytes(o, train, data);
  const std::int64_t step = activation_bytes(train, model, data.feat_dim, true);
  std::int64_t evaluation = 0;
  if (o.eval_every > 0 && o.eval_mode == EvalMode::kSampled) {
    const BatchShape eval = probe_sampled_eval_batch(o, data);
    evaluation = batch_bytes(eval, data.feat_dim) + activation_bytes(eval, model, data.feat_dim, false);
  }
  if (o.exact_eval || !o.output.dir.empty() || (o.eval_every > 0 && o.eval_mode == EvalMode::kExact))
    evaluation = std::max(evaluation, exact_inference_bytes(data, model));
  // Training and evaluation take turns: the peak holds the larger of the two working sets.
  const bool training_peaks = in_flight + step >= evaluation;

  MemoryPlan plan;
  plan.parts = {
      {"runtime", held_bytes, ""},
      {"topology", topology_bytes(data), "", Residence::kMappedShared},
      {"own rows", data.features.bytes() + static_cast<std::int64_t>(data.labels.nbytes()), "", own_rows_residence(o)},
      {"static cache", cache_bytes(o, data), "--alpha, --cache-dtype float16"},
      {"prefetch buffer", prefetch_bytes(o, data), "--prefetch"},
      {"model and optimizer", model_bytes(o, model, ranks), "--hidden, --layers", Residence::kResident, true},
      {"batches in flight", training_peaks ? in_flight : 0, "--batch-size, --fanouts, --pipeline-depth, --superbatch",
       Residence::kResident, true},
      {"activations", training_peaks ? step : 0, "--batch-size, --fanouts, --hidden", Residence::kResident, true},
      {"evaluation", training_peaks ? 0 : evaluation, "--eval-batch-size, --eval-fanouts, --no-exact-eval"},
  };
  return plan;
}

MemoryPlan plan_fullgraph_memory(const FullGraphMemoryInputs& in) {
  const std::int64_t row = in.hidden * kFloat;
  std::int64_t saved = 0, widest_messages = 0;
  for (std::size_t c = 0; c < in.chunk_rows.size(); ++c) {
    saved += (2 * (in.chunk_rows[c] + in.chunk_outside[c]) + 7 * in.chunk_rows[c]) * row / 2;
    if (in.edge_messages) widest_messages = std::max(widest_messages, in.chunk_edges[c] * row);
  }
  MemoryPlan plan;
  plan.parts = {
      {"runtime", in.runtime, ""},
      {"topology", in.topology, "", Residence::kMappedShared},
      {"own rows", in.rows, ""},
      {"model and optimizer", in.parameters * kFloat * 5, "--hidden, --layers"},
      {"layer buffers", (in.historical ? in.layers : 1) * in.slots * row + in.layers * in.own * row,
       "--hidden, more ranks"},
      {"chunk graphs", in.chunk_graphs, "more ranks"},
      {"activations", in.layers * saved + widest_messages, "--hidden, more ranks (--mode pipe: more stages)"},
  };
  return plan;
}

MemoryPlan plan_device_memory(const MemoryPlan& host_plan, const MinibatchOptions& o, const TrainingData& data) {
  const auto tier_rows = static_cast<double>(std::llround(o.device_rows * static_cast<double>(data.num_local)));
  const auto row_bytes =
      static_cast<double>(data.features.bytes()) / static_cast<double>(std::max<std::int64_t>(1, data.num_local));
  MemoryPlan plan;
  plan.parts.push_back({"device rows", static_cast<std::int64_t>(tier_rows * row_bytes), "--device-rows"});
  for (const auto& part : host_plan.parts)
    if (part.on_device) plan.parts.push_back(part);
  return plan;
}

namespace {

// "a (x), b (y)" of the non-empty parts, largest first, and the options that lower them.
struct PartList {
  std::string listed, advice, first_option;
};
PartList list_parts(std::vector<MemoryPart> parts) {
  std::sort(parts.begin(), parts.end(), [](const auto& a, const auto& b) { return a.bytes > b.bytes; });
  PartList out;
  for (const auto& p : parts) {
    if (p.bytes == 0) continue;
    out.listed += fmt::format("{}{} {}", out.listed.empty() ? "" : ", ", p.name, human(p.bytes));
    if (p.lower.empty()) continue;
    out.advice += fmt::format("{}{} ({})", out.advice.empty() ? "" : "; ", p.lower, p.name);
    if (out.first_option.empty()) out.first_option = p.lower.substr(0, p.lower.find(','));
  }
  return out;
}

}  // namespace

void check_device_memory_plan(const MemoryPlan& plan, std::int64_t limit_bytes, std::int64_t free_bytes,
                              int ranks_on_device, const std::string& device) {
  std::int64_t room = limit_bytes;
  std::string where = fmt::format("the limit of {} per rank", human(limit_bytes));
  if (limit_bytes <= 0) {
    if (free_bytes < 0) return;
    room = free_bytes / std::max(1, ranks_on_device);
    where = fmt::format("{}'s free {}{}", device, human(free_bytes),
                        ranks_on_device > 1 ? fmt::format(" shared by {} ranks", ranks_on_device) : "");
  }
  if (plan.total() <= room) return;
  const PartList parts = list_parts(plan.parts);
  const std::string argument =
      limit_bytes > 0 || parts.first_option.empty() ? "--device-memory-limit" : parts.first_option;
  throw Error::in_argument(
      argument,
      fmt::format("this rank needs about {} of device memory ({}), more than {}; lower: {}", human(plan.total()),
                  parts.listed, where, parts.advice.empty() ? "nothing can be lowered" : parts.advice));
}

void check_memory_plan(const MemoryPlan& plan, std::int64_t limit_bytes, int ranks_on_node) {
  std::int64_t room = limit_bytes;
  std::int64_t need = plan.resident();
  std::string where = fmt::format("the limit of {} per rank", human(limit_bytes));
  if (limit_bytes <= 0) {
    const std::int64_t available = core::available_bytes(), resident = core::resident_bytes();
    if (available < 0 || resident < 0) return;
    // What is still to come for every rank on this machine, against what the machine has left.
    need = std::max<std::int64_t>(0, plan.resident() - resident) * ranks_on_node;
    room = available;
    where = fmt::format("the {} this machine has available{}", human(available),
                        ranks_on_node > 1 ? fmt::format(" for its {} ranks", ranks_on_node) : "");
  }
  if (need <= room) return;
  std::vector<MemoryPart> resident_parts;
  for (const auto& p : plan.parts)
    if (p.residence == Residence::kResident) resident_parts.push_back(p);
  const PartList parts = list_parts(resident_parts);
  const std::string argument = limit_bytes > 0 || parts.first_option.empty() ? "--memory-limit" : parts.first_option;
  throw Error::in_argument(
      argument, fmt::format("this rank needs about {} of its own memory ({}; besides {} of mapped "
                            "files), more than {}; lower: {}",
                            human(plan.resident()), parts.listed, human(plan.total() - plan.resident()), where,
                            parts.advice.empty() ? "nothing can be lowered" : parts.advice));
}

std::int64_t record_memory_plan(const MemoryPlan& plan, const comm::Communicator& world, core::MetricsLog& metrics) {
  const std::vector<std::int64_t> per_rank = world.allgather(plan.total(), comm::Channel::control);
  const std::int64_t largest = *std::max_element(per_rank.begin(), per_rank.end());
  if (world.rank() == 0) {
    nlohmann::json record = plan.record();
    record["estimate_bytes_max"] = largest;
    record["estimate_bytes_per_rank"] = per_rank;
    metrics.write(record);
    std::string parts;
    for (const auto& p : plan.parts)
      if (p.bytes > 0)
        parts += fmt::format(", {} {}{}", p.name, human(p.bytes), p.residence == Residence::kResident ? "" : " mapped");
    spdlog::info("memory estimate {} per rank, {} of it mapped (rank 0{})", human(largest),
                 human(plan.total() - plan.resident()), parts);
  }
  return largest;
}

std::int64_t record_memory_peak(std::int64_t estimate, std::int64_t resident_estimate, std::int64_t private_peak,
                                const comm::Communicator& world, core::MetricsLog& metrics) {
  const std::vector<std::int64_t> per_rank = world.allgather(core::peak_resident_bytes(), comm::Channel::control);
  const std::vector<std::int64_t> private_per_rank = world.allgather(private_peak, comm::Channel::control);
  const std::vector<std::int64_t> resident_per_rank = world.allgather(resident_estimate, comm::Channel::control);
  const std::int64_t peak = *std::max_element(per_rank.begin(), per_rank.end());
  if (world.rank() != 0 || peak <= 0) return peak;
  const auto relative = [](std::int64_t estimated, std::int64_t measured) {
    return measured > 0 ? static_cast<double>(estimated - measured) / static_cast<double>(measured) : 0.0;
  };
  double private_error = 0;  // the largest difference of any rank, by size
  for (std::size_t r = 0; r < private_per_rank.size(); ++r) {
    const double e = relative(resident_per_rank[r], private_per_rank[r]);
    if (std::abs(e) > std::abs(private_error)) private_error = e;
  }
  const std::int64_t private_max = *std::max_element(private_per_rank.begin(), private_per_rank.end());
  const std::int64_t resident_max = *std::max_element(resident_per_rank.begin(), resident_per_rank.end());
  metrics.write({{"event", "memory_peak"},
                 {"estimate_bytes", estimate},
                 {"peak_bytes", peak},
                 {"error", relative(estimate, peak)},
                 {"peak_bytes_per_rank", per_rank},
                 {"resident_estimate_bytes_per_rank", resident_per_rank},
                 {"private_peak_bytes_per_rank", private_per_rank},
                 {"private_error", private_error}});
  spdlog::info("memory peak {} per rank, estimated {} ({:+.0f}%); private {}, resident estimated {} ({:+.0f}% at most)",
               human(peak), human(estimate), 100 * relative(estimate, peak), human(private_max), human(resident_max),
               100 * private_error);
  return peak;
}

}  // namespace loom::train
