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
#include "loom/train/gradient_sync.hpp"

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

// The model's matrices: multiply-adds per row of each layer, of the input part and of the output part.
struct ModelWork {
  std::vector<double> layer_macs;
  double input_macs = 0, output_macs = 0;
  double hidden = 0;
  bool initial_residual = false;
  std::vector<std::int64_t> stage_sizes, input_sizes;  // the layers' and output's; the input part's
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
  for (int l = 0; l < model.num_layers(); ++l)
    w.layer_macs.push_back(macs_per_row(model.layer_parameters(l), w.stage_sizes));
  w.output_macs = macs_per_row(model.output_parameters(), w.stage_sizes);
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
  for (const std::size_t elements : train::gradient_buckets(sizes, train::kGradientBucketBytes, 0)) {
    const comm::Traffic t = ring_allreduce(ranks, static_cast<std::int64_t>(elements * sizeof(float)));
    seconds += link.seconds(t);
    bytes += static_cast<double>(t.bytes_out) * ranks;
  }
  return {seconds, bytes};
}

// Graph parallelism: K parts on K ranks, each layer synchronous with its mirror exchange.
FullGraphModeResult graph_mode(const std::vector<PartCount>& parts, const ModelWork& w, const Pricing& price,
                               const comm::LinkModel& link) {
  FullGraphModeResult r;
  r.mode = train::FullGraphMode::kGraph;
  const int k = static_cast<int>(parts.size());
  r.parts = k;
  double exchange = 0;  // one layer's, the slowest rank's
  for (int p = 0; p < k; ++p) {
    comm::Traffic t;
    for (int q = 0; q < k; ++q) {
      const double in = parts[static_cast<std::size_t>(p)].reads_from[static_cast<std::size_t>(q)];
      const double out = parts[static_cast<std::size_t>(q)].reads_from[static_cast<std::size_t>(p)];
      if (q == p) continue;
      t.messages_in += in > 0 ? 1 : 0;
      t.bytes_in += static_cast<std::uint64_t>(in * w.hidden * kFloatBytes);
      t.messages_out += out > 0 ? 1 : 0;
      t.bytes_out += static_cast<std::uint64_t>(out * w.hidden * kFloatBytes);
    }
    exchange = std::max(exchange, link.seconds(t));
    r.halo_bytes += 2.0 * static_cast<double>(w.layer_macs.size()) * static_cast<double>(t.bytes_out);
  }
  for (std::size_t l = 0; l < w.layer_macs.size(); ++l) {
    double slowest = 0;
    for (const PartCount& c : parts)
      slowest = std::max(slowest, price.seconds(c.rows, w.layer_macs[l], c.edges * w.hidden));
    r.compute += 3 * slowest;
    r.exchange += 2 * exchange;
  }
  double ends = 0;
  for (const PartCount& c : parts) ends = std::max(ends, 3 * price.seconds(c.rows, w.input_macs + w.output_macs, 0));
  r.compute += ends;
  // The stage's layers and output, then the input part: two GradientSyncs over the same K ranks.
  for (const auto* sizes : {&w.stage_sizes, &w.input_sizes}) {
    const auto [seconds, bytes] = allreduce_cost(*sizes, k, link);
    r.allreduce += seconds;
    r.weight_bytes += bytes;
  }
  r.epoch_seconds = r.compute + r.exchange + r.allreduce + price.rates.step_overhead;
  return r;
}

// Pipe parallelism: K stages of a balanced layer split, every chunk through each, forward then backward.
FullGraphModeResult pipe_mode(const std::vector<PartCount>& chunks, const ModelWork& w,
                              const std::vector<double>& costs, int stages, const Pricing& price,
                              const comm::LinkModel& link) {
  FullGraphModeResult r;
  r.mode = train::FullGraphMode::kPipe;
  r.parts = static_cast<int>(chunks.size());
  r.layer_bounds = train::balance_layers(costs, stages);
  const std::size_t n = chunks.size(), s_count = static_cast<std::size_t>(stages);
  // forward[s][c]: stage s's forward seconds of chunk c (backward: twice).
  std::vector<std::vector<double>> forward(s_count, std::vector<double>(n, 0.0));
  for (std::size_t s = 0; s < s_count; ++s)
    for (std::size_t c = 0; c < n; ++c) {
      const PartCount& ch = chunks[c];
      double macs = 0, values = 0;
      for (int l = r.layer_bounds[s]; l < r.layer_bounds[s + 1]; ++l) {
        macs += w.layer_macs[static_cast<std::size_t>(l)];
        values += ch.edges * w.hidden;
      }
      if (s == 0 || w.initial_residual) macs += w.input_macs;
      if (s + 1 == s_count) macs += w.output_macs;
      forward[s][c] = price.seconds(ch.rows, macs, values);
    }
  auto transfer = [&](std::size_t c) {
    const double bytes = chunks[c].rows * w.hidden * kFloatBytes;
    return link.seconds({1, static_cast<std::uint64_t>(bytes), 1, static_cast<std::uint64_t>(bytes)});
  };
  // Forward in chunk order, then backward in reverse; a stage waits for its previous task and the
  // neighbouring stage's message.
  std::vector<std::vector<double>> done(s_count, std::vector<double>(n, 0.0));
  std::vector<double> busy(s_count, 0.0), free_at(s_count, 0.0);
  for (std::size_t c = 0; c < n; ++c)
    for (std::size_t s = 0; s < s_count; ++s) {
      const double ready = s == 0 ? 0.0 : done[s - 1][c] + transfer(c);
      done[s][c] = std::max(free_at[s], ready) + forward[s][c];
      free_at[s] = done[s][c];
      busy[s] += forward[s][c];
    }
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t c = n - 1 - i;
    for (std::size_t s = s_count; s-- > 0;) {
      const double ready = s + 1 == s_count ? free_at[s] : done[s + 1][c] + transfer(c);
      done[s][c] = std::max(free_at[s], ready) + 2 * forward[s][c];
      free_at[s] = done[s][c];
      busy[s] += 2 * forward[s][c];
    }
  }
  const double end = *std::max_element(free_at.begin(), free_at.end());
  for (std::size_t s = 0; s < s_count; ++s) {
    r.compute = std::max(r.compute, busy[s]);
    r.bubble = std::max(r.bubble, end - busy[s]);
  }
  for (std::size_t c = 0; c < n; ++c) {
    r.exchange += transfer(c) * 2;
    r.activation_bytes += static_cast<double>(stages - 1) * chunks[c].rows * w.hidden * kFloatBytes;
  }
  r.exchange *= stages - 1;
  r.gradient_bytes = r.activation_bytes;
  if (w.initial_residual) std::tie(r.allreduce, r.weight_bytes) = allreduce_cost(w.input_sizes, stages, link);
  r.epoch_seconds = end + r.allreduce + price.rates.step_overhead;
  return r;
}

void check(const FullGraphPlanOptions& o) {
  LOOM_CHECK_ARG(!o.hosts.empty(), "--hosts", "give at least one host count");
  for (const int k : o.hosts) LOOM_CHECK_ARG(k >= 1 && k <= 4096, "--hosts", "must be in 1..4096, got {}", k);
  LOOM_CHECK_ARG(!o.modes.empty(), "--modes", "give at least one mode");
  for (const auto m : o.modes)
    LOOM_CHECK_ARG(m != train::FullGraphMode::kHybrid, "--modes", "hybrid is not modelled: plan graph and pipe");
  LOOM_CHECK_ARG(o.fullgraph.chunks >= 0, "--chunks", "must be >= 0, got {}", o.fullgraph.chunks);
  LOOM_CHECK_ARG(!o.fullgraph.stale_halo, "--stale-halo", "is not modelled");
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
      if (mode == train::FullGraphMode::kGraph) {
        const KWayGraph g = kway_from_store(o.fullgraph.store, hosts, o.partition_method, seed);
        h.modes.push_back(graph_mode(count_parts(g), work, price, profile.network));
      } else {
        LOOM_CHECK_ARG(hosts <= options.num_layers, "--hosts",
                       "pipe mode needs at most one stage per layer ({}), got {}", options.num_layers, hosts);
        const int chunks = o.fullgraph.chunks > 0 ? o.fullgraph.chunks : hosts;
        LOOM_CHECK_ARG(chunks >= hosts, "--chunks", "pipe mode needs at least one chunk per stage ({}), got {}", hosts,
                       chunks);
        const KWayGraph g = kway_from_store(o.fullgraph.store, chunks, o.partition_method, seed);
        const std::vector<double> costs = train::estimate_layer_costs(model, g.csr);
        h.modes.push_back(pipe_mode(count_parts(g), work, costs, hosts, price, profile.network));
      }
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
