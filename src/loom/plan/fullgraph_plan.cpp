#include "loom/plan/fullgraph_plan.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>

#include <fmt/format.h>
#include <torch/torch.h>

#include "loom/core/error.hpp"
#include "loom/graph/info.hpp"
#include "loom/nn/deep_model.hpp"
#include "loom/partition/partitioned_store.hpp"
#include "loom/plan/kway_graph.hpp"
#include "loom/plan/step_costs.hpp"
#include "loom/train/fullgraph/fullgraph_layout.hpp"
#include "loom/train/fullgraph/layer_costs.hpp"
#include "loom/nn/gradient_sync.hpp"

namespace loom::plan {

namespace {

constexpr double kFloatBytes = 4;  // rows travel as float32

// One part's rows, the in-edges of those rows, and how many of its outside sources each part owns.
struct PartCount {
  double rows = 0, edges = 0;
  std::vector<double> reads_from;  // [owner part]: distinct rows of that part this part reads
};

std::vector<PartCount> count_parts(const KWayGraph& g) {
  const int parts = g.parts();
  std::vector<PartCount> counts(static_cast<std::size_t>(parts));
  std::vector<int> seen(static_cast<std::size_t>(g.csr.num_rows()), -1);  // last part that read the row
  g.csr.visit([&](auto view) {
    for (int p = 0; p < parts; ++p) {
      PartCount& c = counts[static_cast<std::size_t>(p)];
      c.reads_from.assign(static_cast<std::size_t>(parts), 0.0);
      const partition::IdRange own = g.book.range(p);
      c.rows = static_cast<double>(own.size());
      for (std::int64_t v = own.begin; v < own.end; ++v) {
        c.edges += static_cast<double>(view.degree(v));
        for (const auto u : view.neighbors(v)) {
          if (own.contains(u) || seen[static_cast<std::size_t>(u)] == p) continue;
          seen[static_cast<std::size_t>(u)] = p;
          c.reads_from[static_cast<std::size_t>(g.book.owner(u))] += 1;
        }
      }
    }
  });
  return counts;
}

// way_reads[q][p]: the distinct rows of part p that some chunk of way q reads, p of another way
// (MirrorExchange's mirrors of way q, by owner part); way q owns parts q*chunks .. (q+1)*chunks-1.
std::vector<std::vector<double>> count_way_reads(const KWayGraph& g, int ways, int chunks) {
  const int parts = g.parts();
  std::vector<std::vector<double>> reads(static_cast<std::size_t>(ways), std::vector<double>(parts, 0.0));
  std::vector<int> seen(static_cast<std::size_t>(g.csr.num_rows()), -1);  // last way that read the row
  g.csr.visit([&](auto view) {
    for (int q = 0; q < ways; ++q) {
      const partition::IdRange own{g.book.range(q * chunks).begin, g.book.range((q + 1) * chunks - 1).end};
      for (std::int64_t v = own.begin; v < own.end; ++v)
        for (const auto u : view.neighbors(v)) {
          if (own.contains(u) || seen[static_cast<std::size_t>(u)] == q) continue;
          seen[static_cast<std::size_t>(u)] = q;
          reads[static_cast<std::size_t>(q)][static_cast<std::size_t>(g.book.owner(u))] += 1;
        }
    }
  });
  return reads;
}

// The model's matrices: multiply-adds per row of each layer, of the input part and of the output part.
struct ModelWork {
  std::vector<double> layer_macs;
  double input_macs = 0, output_macs = 0;
  double hidden = 0;
  bool initial_residual = false;
  std::vector<std::vector<std::int64_t>> layer_sizes;  // each layer's parameters' sizes
  std::vector<std::int64_t> input_sizes, output_sizes;
};

double macs_per_row(const std::vector<torch::Tensor>& parameters, std::vector<std::int64_t>& sizes) {
  double entries = 0;
  for (const auto& p : parameters) {
    sizes.push_back(p.numel());
    if (p.dim() >= 2) entries += static_cast<double>(p.numel());
  }
  return entries;
}

ModelWork model_work(const nn::DeepGnn& model) {
  ModelWork w;
  w.hidden = static_cast<double>(model.options().hidden);
  w.initial_residual = model.uses_initial_residual();
  w.input_macs = macs_per_row(model.input_parameters(), w.input_sizes);
  w.layer_sizes.resize(static_cast<std::size_t>(model.num_layers()));
  for (int l = 0; l < model.num_layers(); ++l)
    w.layer_macs.push_back(macs_per_row(model.layer_parameters(l), w.layer_sizes[static_cast<std::size_t>(l)]));
  w.output_macs = macs_per_row(model.output_parameters(), w.output_sizes);
  return w;
}

// Seconds of a forward pass of `macs` multiply-adds per row and `values` aggregated values;
// backward costs twice as much.
struct Pricing {
  ComputeRates rates;
  double share = 1;  // cores (the host's rates are per core), 1 for a GPU
  double seconds(double rows, double macs, double values) const {
    return 2 * rows * macs / (rates.flops * share) + values / (rates.values * share);
  }
};

// All-reduces of these parameters' gradients in GradientSync's buckets over `ranks` (the trainer's
// plain all_reduce: no agreement flags): seconds, and bytes sent by all.
std::pair<double, double> allreduce_cost(const std::vector<std::int64_t>& sizes, int ranks,
                                         const comm::LinkModel& link) {
  double seconds = 0, bytes = 0;
  for (const std::size_t elements : nn::gradient_buckets(sizes, nn::kGradientBucketBytes, 0)) {
    const comm::Traffic t = ring_allreduce(ranks, static_cast<std::int64_t>(elements * sizeof(float)));
    seconds += link.seconds(t);
    bytes += static_cast<double>(t.bytes_out) * ranks;
  }
  return {seconds, bytes};
}

// One traffic of an exchange among a stage's ways, for the way sending `out` and receiving `in` rows
// of `width` floats from each other way (a message for each that has rows).
void add_rows(comm::Traffic& t, double out, double in, double width) {
  t.messages_out += out > 0 ? 1 : 0;
  t.bytes_out += static_cast<std::uint64_t>(out * width * kFloatBytes);
  t.messages_in += in > 0 ? 1 : 0;
  t.bytes_in += static_cast<std::uint64_t>(in * width * kFloatBytes);
}

// The mirror exchanges of chunk c among the stage's ways at one layer, as the slowest way sees them:
// values (each way sends the rows of its chunk c that other ways read) and gradients (each way
// returns the gradients of its chunk c's outside rows that other ways own). Adds every way's bytes
// sent to `bytes`.
std::pair<double, double> exchange_seconds(const std::vector<PartCount>& parts,
                                           const std::vector<std::vector<double>>& way_reads,
                                           const train::FullGraphLayout& layout, int c, double width,
                                           const comm::LinkModel& link, double& bytes) {
  double values = 0, grads = 0;
  const int ways = layout.ways;
  for (int w = 0; w < ways; ++w) {
    comm::Traffic tv, tg;
    const PartCount& mine = parts[static_cast<std::size_t>(layout.part_of(w, c))];
    for (int q = 0; q < ways; ++q) {
      if (q == w) continue;
      const PartCount& theirs = parts[static_cast<std::size_t>(layout.part_of(q, c))];
      add_rows(tv, way_reads[q][layout.part_of(w, c)], way_reads[w][layout.part_of(q, c)], width);
      double grads_out = 0, grads_in = 0;  // outside rows of my chunk c owned by way q, and the reverse
      for (int k = 0; k < layout.chunks; ++k) {
        grads_out += mine.reads_from[static_cast<std::size_t>(layout.part_of(q, k))];
        grads_in += theirs.reads_from[static_cast<std::size_t>(layout.part_of(w, k))];
      }
      add_rows(tg, grads_out, grads_in, width);
    }
    values = std::max(values, link.seconds(tv));
    grads = std::max(grads, link.seconds(tg));
    bytes += static_cast<double>(tv.bytes_out + tg.bytes_out);
  }
  return {values, grads};
}

// Each chunk's step on each stage, forward and backward: layer by layer, the slowest way's compute
// and the ways' mirror exchange of that layer; `transfer` is a chunk's activations (rows x hidden)
// from one stage to the next. Adds the halo and activation bytes to `r`.
struct StageTimes {
  std::vector<std::vector<double>> forward, backward;  // [stage][chunk]
  std::vector<double> transfer;                        // [chunk]
  std::vector<double> exchanges;                       // [stage]: its mirror exchanges' seconds
};

// The slowest way's seconds for chunk c at `macs` per row (and `values` moved per edge).
double slowest_way(const std::vector<PartCount>& parts, const train::FullGraphLayout& layout, int c, double macs,
                   double values_per_edge, const Pricing& price) {
  double slowest = 0;
  for (int way = 0; way < layout.ways; ++way) {
    const PartCount& ch = parts[static_cast<std::size_t>(layout.part_of(way, c))];
    slowest = std::max(slowest, price.seconds(ch.rows, macs, ch.edges * values_per_edge));
  }
  return slowest;
}

StageTimes stage_times(const std::vector<PartCount>& parts, const std::vector<std::vector<double>>& way_reads,
                       const train::FullGraphLayout& layout, const std::vector<int>& bounds, const ModelWork& w,
                       const Pricing& price, const comm::LinkModel& link, FullGraphModeResult& r) {
  const auto stages = static_cast<std::size_t>(layout.stages), chunks = static_cast<std::size_t>(layout.chunks);
  StageTimes t{std::vector<std::vector<double>>(stages, std::vector<double>(chunks, 0.0)),
               {},
               std::vector<double>(chunks, 0.0),
               std::vector<double>(stages, 0.0)};
  t.backward = t.forward;
  for (std::size_t c = 0; c < chunks; ++c) {
    const int chunk = static_cast<int>(c);
    double halo = 0;
    const auto [values, grads] = layout.ways > 1
                                     ? exchange_seconds(parts, way_reads, layout, chunk, w.hidden, link, halo)
                                     : std::pair<double, double>{0, 0};
    for (std::size_t s = 0; s < stages; ++s) {
      double step = 0;  // forward compute, the slowest way's at each layer
      for (int l = bounds[s]; l < bounds[s + 1]; ++l)
        step += slowest_way(parts, layout, chunk, w.layer_macs[static_cast<std::size_t>(l)], w.hidden, price);
      // the input part (first stage, or every stage for GCNII) and the output part (last)
      const double end_macs = (s == 0 || w.initial_residual ? w.input_macs : 0) + (s + 1 == stages ? w.output_macs : 0);
      const double ends = slowest_way(parts, layout, chunk, end_macs, 0, price);
      const double layers = bounds[s + 1] - bounds[s];
      t.forward[s][c] = step + ends + layers * values;
      t.backward[s][c] = 2 * (step + ends) + layers * grads;
      t.exchanges[s] += layers * (values + grads);
      r.halo_bytes += layers * halo;
    }
    for (int way = 0; way < layout.ways; ++way) {
      const double bytes = parts[static_cast<std::size_t>(layout.part_of(way, chunk))].rows * w.hidden * kFloatBytes;
      t.transfer[c] = std::max(
          t.transfer[c], link.seconds({1, static_cast<std::uint64_t>(bytes), 1, static_cast<std::uint64_t>(bytes)}));
      r.activation_bytes += static_cast<double>(stages - 1) * bytes;
    }
  }
  r.gradient_bytes = r.activation_bytes;
  return t;
}

// The chunk schedule: each stage takes every chunk forward in order, then backward in reverse; a
// chunk's step on a stage starts when the stage is free and the neighbouring stage's activations
// (or gradients) have arrived. Returns when the last stage is done; `busy` is each stage's work.
double schedule_chunks(const StageTimes& t, std::vector<double>& busy) {
  const std::size_t stages = t.forward.size(), chunks = t.transfer.size();
  std::vector<std::vector<double>> done(stages, std::vector<double>(chunks, 0.0));
  std::vector<double> free_at(stages, 0.0);
  busy.assign(stages, 0.0);
  for (std::size_t c = 0; c < chunks; ++c)
    for (std::size_t s = 0; s < stages; ++s) {
      const double ready = s == 0 ? 0.0 : done[s - 1][c] + t.transfer[c];
      done[s][c] = std::max(free_at[s], ready) + t.forward[s][c];
      free_at[s] = done[s][c];
      busy[s] += t.forward[s][c];
    }
  for (std::size_t i = 0; i < chunks; ++i) {
    const std::size_t c = chunks - 1 - i;
    for (std::size_t s = stages; s-- > 0;) {
      const double ready = s + 1 == stages ? free_at[s] : done[s + 1][c] + t.transfer[c];
      done[s][c] = std::max(free_at[s], ready) + t.backward[s][c];
      free_at[s] = done[s][c];
      busy[s] += t.backward[s][c];
    }
  }
  return *std::max_element(free_at.begin(), free_at.end());
}

// The all-reduces after the last backward: each stage's layers over its ways; the input part over
// every rank where every layer reads it (GCNII), else over the first stage's ways.
void add_allreduces(const train::FullGraphLayout& layout, const std::vector<int>& bounds, const ModelWork& w,
                    const comm::LinkModel& link, FullGraphModeResult& r) {
  const auto stages = static_cast<std::size_t>(layout.stages);
  for (std::size_t s = 0; s < stages; ++s) {
    std::vector<std::int64_t> sizes;
    for (int l = bounds[s]; l < bounds[s + 1]; ++l)
      sizes.insert(sizes.end(), w.layer_sizes[static_cast<std::size_t>(l)].begin(),
                   w.layer_sizes[static_cast<std::size_t>(l)].end());
    if (s + 1 == stages) sizes.insert(sizes.end(), w.output_sizes.begin(), w.output_sizes.end());
    const auto [seconds, bytes] = allreduce_cost(sizes, layout.ways, link);
    r.allreduce = std::max(r.allreduce, seconds);
    r.weight_bytes += bytes;
  }
  const auto [seconds, bytes] =
      allreduce_cost(w.input_sizes, w.initial_residual ? layout.stages * layout.ways : layout.ways, link);
  r.allreduce += seconds;
  r.weight_bytes += bytes;
}

// Every mode as `layout` places it: S stages of W ways (graph: 1 x K, pipe: K x 1, hybrid: between);
// way w computes chunks w*C .. (w+1)*C-1 of `parts`. The epoch is the chunk schedule of the stages'
// steps, then the all-reduces.
FullGraphModeResult staged_mode(const std::vector<PartCount>& parts, const std::vector<std::vector<double>>& way_reads,
                                const train::FullGraphLayout& layout, const std::vector<int>& bounds,
                                const ModelWork& w, const Pricing& price, const comm::LinkModel& link) {
  FullGraphModeResult r;
  r.mode = layout.mode;
  r.parts = static_cast<int>(parts.size());
  r.layer_bounds = bounds;
  const StageTimes times = stage_times(parts, way_reads, layout, bounds, w, price, link, r);
  std::vector<double> busy;
  const double end = schedule_chunks(times, busy);
  for (std::size_t s = 0; s < busy.size(); ++s) {
    r.compute = std::max(r.compute, busy[s] - times.exchanges[s]);
    r.bubble = std::max(r.bubble, end - busy[s]);
    r.exchange = std::max(r.exchange, times.exchanges[s]);
  }
  if (busy.size() > 1)
    for (const double t : times.transfer) r.exchange += 2 * t;
  add_allreduces(layout, bounds, w, link, r);
  r.epoch_seconds = end + r.allreduce + price.rates.step_overhead;
  return r;
}

void check(const FullGraphPlanOptions& o) {
  LOOM_CHECK_ARG(!o.hosts.empty(), "--hosts", "give at least one host count");
  for (const int k : o.hosts) LOOM_CHECK_ARG(k >= 1 && k <= 4096, "--hosts", "must be in 1..4096, got {}", k);
  LOOM_CHECK_ARG(!o.modes.empty(), "--modes", "give at least one mode");
  LOOM_CHECK_ARG(o.fullgraph.chunks >= 0, "--chunks", "must be >= 0, got {}", o.fullgraph.chunks);
  nn::check_model_options(o.fullgraph.model);
}

graph::GraphDescription describe(const std::string& store) {
  if (graph::store_kind(store) == graph::StoreKind::kPartitioned)
    return partition::PartitionedStore::open(store).meta().graph;
  return graph::GraphStore::open(store).meta();
}

}  // namespace

FullGraphPlan make_fullgraph_plan(const FullGraphPlanOptions& o) {
  check(o);
  FullGraphPlan plan;
  const ClusterProfile profile = read_profile(o.cluster);
  plan.cluster = fmt::format("{} ({})", profile.name, o.cluster);
  const graph::GraphDescription d = describe(o.fullgraph.store);
  plan.graph = o.fullgraph.store;
  nn::DeepModelOptions options = o.fullgraph.model;
  options.in_features = d.feat_dim;
  options.num_classes = std::max<std::int64_t>(d.num_classes, 2);
  torch::manual_seed(o.fullgraph.run.seed);
  const nn::DeepGnn model(options);
  const ModelWork work = model_work(model);
  plan.model =
      fmt::format("{} x {} layers, hidden {}", nn::deep_kind_name(options.kind), options.num_layers, options.hidden);
  const Pricing price{profile.gpu.present() ? profile.gpu.compute : profile.cpu,
                      profile.gpu.present() ? 1.0 : profile.cores};
  const std::uint64_t seed = o.fullgraph.run.seed;
  for (const int hosts : o.hosts) {
    FullGraphHosts h;
    h.hosts = hosts;
    for (const train::FullGraphMode mode : o.modes) {
      if (mode != train::FullGraphMode::kGraph)
        LOOM_CHECK_ARG(hosts <= options.num_layers * (mode == train::FullGraphMode::kHybrid ? o.fullgraph.ways : 1),
                       "--hosts", "{} mode needs at most one stage per layer ({} layers), got {} hosts",
                       train::fullgraph_mode_name(mode), options.num_layers, hosts);
      const int ways = mode == train::FullGraphMode::kGraph  ? hosts
                       : mode == train::FullGraphMode::kPipe ? 1
                                                             : o.fullgraph.ways;
      LOOM_CHECK_ARG(ways >= 1 && hosts % ways == 0, "--ways", "{} hosts cannot form stages of {} ranks", hosts, ways);
      const int parts = mode == train::FullGraphMode::kGraph ? hosts
                        : o.fullgraph.chunks > 0             ? ways * o.fullgraph.chunks
                                                             : hosts;
      const KWayGraph g = kway_from_store(o.fullgraph.store, parts, o.partition_method, seed);
      const train::FullGraphLayout layout =
          train::make_layout(mode, hosts, 0, parts, o.fullgraph.ways, o.fullgraph.chunks, options.num_layers);
      const std::vector<int> bounds =
          layout.stages == 1 ? std::vector<int>{0, options.num_layers}
                             : train::balance_layers(train::estimate_layer_costs(model, g.csr), layout.stages);
      const std::vector<std::vector<double>> way_reads =
          layout.ways > 1 ? count_way_reads(g, layout.ways, layout.chunks) : std::vector<std::vector<double>>{};
      h.modes.push_back(staged_mode(count_parts(g), way_reads, layout, bounds, work, price, profile.network));
      if (h.fastest < 0 || h.modes.back().epoch_seconds < h.modes[static_cast<std::size_t>(h.fastest)].epoch_seconds)
        h.fastest = static_cast<int>(h.modes.size()) - 1;
    }
    plan.results.push_back(std::move(h));
  }
  return plan;
}

nlohmann::json FullGraphPlan::to_json() const {
  nlohmann::json j = {{"graph", graph}, {"cluster", cluster}, {"model", model}, {"hosts", nlohmann::json::array()}};
  for (const FullGraphHosts& h : results) {
    nlohmann::json modes = nlohmann::json::array();
    for (const FullGraphModeResult& r : h.modes)
      modes.push_back({{"mode", train::fullgraph_mode_name(r.mode)},
                       {"parts", r.parts},
                       {"epoch_seconds", r.epoch_seconds},
                       {"compute", r.compute},
                       {"exchange", r.exchange},
                       {"bubble", r.bubble},
                       {"allreduce", r.allreduce},
                       {"layer_bounds", r.layer_bounds},
                       {"bytes",
                        {{"halo", r.halo_bytes},
                         {"activations", r.activation_bytes},
                         {"gradients", r.gradient_bytes},
                         {"weights", r.weight_bytes}}}});
    j["hosts"].push_back({{"hosts", h.hosts},
                          {"modes", modes},
                          {"fastest", h.fastest < 0 ? nlohmann::json(nullptr)
                                                    : nlohmann::json(train::fullgraph_mode_name(
                                                          h.modes[static_cast<std::size_t>(h.fastest)].mode))}});
  }
  return j;
}

std::string FullGraphPlan::table() const {
  auto mib = [](double bytes) { return bytes / (1024.0 * 1024.0); };
  std::string out = fmt::format(
      "full-graph plan for {} ({}) on {}\nseconds per epoch (the slowest rank's compute, exchange on the wire, "
      "pipeline bubble, all-reduce); MiB sent by all hosts\n",
      graph, model, cluster);
  for (const FullGraphHosts& h : results) {
    out += fmt::format("\n{} hosts\n{:<6} {:>6} {:>8} {:>8} {:>8} {:>7} {:>9} {:>9} {:>10} {:>9} {:>9}\n", h.hosts,
                       "mode", "parts", "epoch s", "compute", "exchange", "bubble", "allreduce", "halo MiB",
                       "activ MiB", "grad MiB", "weight MiB");
    for (const FullGraphModeResult& r : h.modes)
      out += fmt::format(
          "{:<6} {:>6} {:>8.3f} {:>8.3f} {:>8.3f} {:>7.3f} {:>9.3f} {:>9.1f} {:>10.1f} {:>9.1f} {:>9.1f}\n",
          train::fullgraph_mode_name(r.mode), r.parts, r.epoch_seconds, r.compute, r.exchange, r.bubble, r.allreduce,
          mib(r.halo_bytes), mib(r.activation_bytes), mib(r.gradient_bytes), mib(r.weight_bytes));
    if (h.fastest >= 0)
      out +=
          fmt::format("fastest: {}\n", train::fullgraph_mode_name(h.modes[static_cast<std::size_t>(h.fastest)].mode));
  }
  return out;
}

}  // namespace loom::plan
