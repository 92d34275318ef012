#include "loom/plan/planner.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "loom/format/digest.hpp"
#include "loom/format/dtype.hpp"
#include "loom/core/fs.hpp"
#include "loom/core/error.hpp"
#include "loom/core/log.hpp"
#include "loom/core/timer.hpp"
#include "loom/graph/info.hpp"
#include "loom/partition/partitioned_store.hpp"
#include "loom/plan/counts_cache.hpp"
#include "loom/plan/step_costs.hpp"

namespace loom::plan {

namespace {

// The graph's whole size and feature format, from the store's meta.json or the shape.
struct GraphFacts {
  std::int64_t nodes = 0, edges = 0, feat_dim = 0, classes = 0, feat_bytes = 4;
  std::string name;
};

GraphFacts graph_facts(const PlanOptions& o) {
  GraphFacts f;
  if (o.shape) {
    f = {o.shape->nodes, o.shape->edges, o.shape->feat_dim, o.shape->classes, o.shape->feat_bytes, ""};
    f.name = fmt::format("a graph of {} nodes, {} edges, {} training nodes, {} features of {} bytes, {} classes",
                         f.nodes, f.edges, o.shape->train_nodes, f.feat_dim, f.feat_bytes, f.classes);
    return f;
  }
  graph::GraphDescription d;
  if (graph::store_kind(o.store) == graph::StoreKind::kPartitioned)
    d = partition::PartitionedStore::open(o.store).meta().graph;
  else
    d = graph::GraphStore::open(o.store).meta();
  LOOM_CHECK_ARG(d.feat_dim > 0, "store", "{} has no feature rows: a plan prices their fetch", o.store);
  f = {d.num_nodes,
       d.num_edges,
       d.feat_dim,
       std::max<std::int64_t>(d.num_classes, 2),
       static_cast<std::int64_t>(format::dtype_size(d.feat_dtype)),
       o.store};
  return f;
}

void check(const PlanOptions& o) {
  LOOM_CHECK_ARG(!o.hosts.empty(), "--hosts", "give at least one host count");
  for (const int k : o.hosts) LOOM_CHECK_ARG(k >= 1 && k <= 4096, "--hosts", "must be in 1..4096, got {}", k);
  LOOM_CHECK_ARG(!o.regimes.empty(), "--regimes", "give at least one regime");
  for (const double a : o.alphas) LOOM_CHECK_ARG(a > 0 && std::isfinite(a), "--alphas", "must be positive, got {}", a);
  for (const double f : o.prefetch)
    LOOM_CHECK_ARG(f > 0 && f <= 1, "--prefetch-fractions", "must be in (0, 1], got {}", f);
  for (const auto p : o.policies)
    LOOM_CHECK_ARG(p != feature::CachePolicy::kNone, "--policies", "'none' is the pipelined regime, not a policy");
  LOOM_CHECK_ARG(o.store.empty() != !o.shape.has_value(), "store", "give a store or --shape, not both");
  LOOM_CHECK_ARG(o.train.batch_size > 0, "--batch-size", "must be positive, got {}", o.train.batch_size);
  // Options whose runs the plan does not model are refused, not ignored.
  LOOM_CHECK_ARG(o.train.task == train::Task::kNode, "--task",
                 "loom plan predicts node-classification epochs; link prediction is not planned yet");
  LOOM_CHECK_ARG(o.train.data_path.superbatch == 1, "--superbatch",
                 "loom plan counts one fetch per step; a superbatch of {} is not planned yet",
                 o.train.data_path.superbatch);
  LOOM_CHECK_ARG(o.train.data_path.device_rows == 0, "--device-rows",
                 "loom plan copies every input row to the GPU; device tiers are not planned yet");
}

struct Variant {
  RegimeKind kind;
  std::string name;
  std::size_t holding = 0;  // index into the holdings
  int depth = 0;
};

// The holdings the regimes asked for, and the regimes' variants over them.
std::vector<Variant> variants(const PlanOptions& o, const SplitSummary& g, std::vector<RemoteRows>& holdings,
                              int depth) {
  const int parts = g.parts();
  holdings = {{"none", feature::CachePolicy::kNone, std::vector<std::int64_t>(static_cast<std::size_t>(parts), 0)}};
  std::vector<Variant> out;
  const auto asked = [&](RegimeKind kind) {
    return std::find(o.regimes.begin(), o.regimes.end(), kind) != o.regimes.end();
  };
  if (asked(RegimeKind::kReplicated)) out.push_back({RegimeKind::kReplicated, "replicated", 0, depth});
  if (asked(RegimeKind::kPartitioned)) out.push_back({RegimeKind::kPartitioned, "partitioned, no pipeline", 0, 0});
  if (asked(RegimeKind::kPipelined)) out.push_back({RegimeKind::kPipelined, "pipelined, no cache", 0, depth});
  if (asked(RegimeKind::kCache))
    for (const auto policy : o.policies)
      for (const double alpha : o.alphas) {
        RemoteRows h{fmt::format("{} a={:g}", core::enum_name(feature::kCachePolicyNames, policy), alpha), policy, {}};
        for (int k = 0; k < parts; ++k) h.capacity.push_back(feature::cache_capacity(alpha, g.book, k));
        out.push_back({RegimeKind::kCache, "cache " + h.name, holdings.size(), depth});
        holdings.push_back(std::move(h));
      }
  if (asked(RegimeKind::kPrefetch))
    for (const double fraction : o.prefetch) {
      RemoteRows h{fmt::format("prefetch {:g}", fraction), feature::CachePolicy::kVip, {}};
      for (int k = 0; k < parts; ++k)
        h.capacity.push_back(static_cast<std::int64_t>(std::floor(fraction * static_cast<double>(g.halo_sizes[k]))));
      out.push_back({RegimeKind::kPrefetch, h.name, holdings.size(), depth});
      holdings.push_back(std::move(h));
    }
  return out;
}

HostMemory host_memory(const Variant& v, const SplitSummary& g, const EpochCounts& counts, const RemoteRows& held,
                       const ModelSpec& spec, const GraphFacts& facts, const ClusterProfile& profile) {
  const double node_ratio = static_cast<double>(facts.nodes) / static_cast<double>(g.book.num_nodes());
  HostMemory m;
  m.topology = (facts.nodes + 1) * 8 + facts.edges * (facts.nodes < (std::int64_t{1} << 31) ? 4 : 8);
  std::int64_t most_rows = 0, most_held = 0;
  for (int k = 0; k < g.parts(); ++k) {
    most_rows = std::max(most_rows, g.book.range(k).end - g.book.range(k).begin);
    most_held = std::max(most_held, held.capacity[k]);
  }
  m.features = v.kind == RegimeKind::kReplicated
                   ? facts.nodes * spec.row_bytes
                   : static_cast<std::int64_t>(static_cast<double>(most_rows) * node_ratio) * spec.row_bytes;
  m.held = static_cast<std::int64_t>(static_cast<double>(most_held) * node_ratio) * spec.row_bytes;
  for (const std::int64_t size : spec.parameter_sizes) m.model += size * 16;
  double batch = 0, activations = 0;
  for (const auto& steps : counts.parts)
    for (const StepCount& s : steps) {
      batch = std::max(batch, static_cast<double>(s.input_rows) * static_cast<double>(facts.feat_dim) * 4);
      double a = 0;
      for (std::size_t l = 0; l < s.layers.size(); ++l) {
        const double width =
            l + 1 == s.layers.size() ? static_cast<double>(facts.classes) : static_cast<double>(spec.model.hidden);
        a += static_cast<double>(s.layers[l].dst) * width * 4 * 3;
      }
      activations =
          std::max(activations, a + static_cast<double>(s.input_rows) * static_cast<double>(facts.feat_dim) * 4);
    }
  const double scale = g.scale;
  m.batches = static_cast<std::int64_t>((v.depth + 1) * batch * scale);
  m.activations = static_cast<std::int64_t>(activations * scale);
  m.runtime = kRuntimeBytes;
  if (profile.gpu.present()) m.device = m.model + static_cast<std::int64_t>(2 * batch * scale) + m.activations;
  return m;
}

RegimeResult predict(const Variant& v, const SplitSummary& g, const EpochCounts& counts,
                     const std::vector<RemoteRows>& holdings, const ModelSpec& spec, const GraphFacts& facts,
                     const ClusterProfile& profile) {
  const bool replicated = v.kind == RegimeKind::kReplicated;
  const EpochCosts costs = cost_epoch(counts, g.scale, spec, profile, v.holding, replicated);
  RegimeResult r;
  r.name = v.name;
  r.kind = v.kind;
  r.pipeline_depth = v.depth;
  r.epoch = simulate_epoch(costs, v.depth);
  for (std::size_t k = 0; k < costs.parts.size(); ++k)
    for (std::int64_t s = 0; s < counts.steps; ++s) {
      const StepCost& c = costs.parts[k][s];
      r.feature_bytes += static_cast<double>(c.fetch.ids.bytes_out + c.fetch.rows.bytes_out);
      r.feature_messages += static_cast<double>(c.fetch.ids.messages_out + c.fetch.rows.messages_out);
      r.device_bytes += c.copy_bytes;
      if (!replicated)
        for (const std::int64_t rows : counts.parts[k][s].fetched[v.holding])
          r.remote_rows += static_cast<double>(rows) * g.scale;
    }
  const double collectives = static_cast<double>(costs.parts.size()) * static_cast<double>(counts.steps);
  r.gradient_bytes = collectives * static_cast<double>(costs.allreduce.bytes_out);
  r.gradient_messages = collectives * static_cast<double>(costs.allreduce.messages_out);
  r.memory = host_memory(v, g, counts, holdings[v.holding], spec, facts, profile);
  r.fits = r.memory.host_total() <= profile.memory_bytes &&
           (!profile.gpu.present() || r.memory.device <= profile.gpu.memory_bytes);
  return r;
}

// The digest of what a plan's counts depend on besides the options: the store's meta.json (which
// records every file's digest) and where it is, or the shape the stand-in is generated from.
std::string graph_key(const PlanOptions& o) {
  if (o.shape) {
    const GraphShape& s = *o.shape;
    return fmt::format("shape nodes={} edges={} train={} scale={} rmat={},{},{} batch={}", s.nodes, s.edges,
                       s.train_nodes, s.stand_in_scale, s.rmat_a, s.rmat_b, s.rmat_c, o.train.batch_size);
  }
  const std::string meta = core::read_text_file(o.store + "/meta.json");
  return fmt::format("store {} meta crc32:{:08x}", std::filesystem::weakly_canonical(o.store).string(),
                     format::crc32_of(meta.data(), static_cast<std::int64_t>(meta.size())));
}

// Everything a host count's counts depend on: a different key is a different count.
std::string counts_key(const PlanOptions& o, const std::string& graph, int hosts, const SamplingSpec& sampling) {
  std::string holdings;
  for (const auto policy : o.policies) holdings += core::enum_name(feature::kCachePolicyNames, policy) + " ";
  for (const double a : o.alphas) holdings += fmt::format("a={:g} ", a);
  for (const double f : o.prefetch) holdings += fmt::format("prefetch={:g} ", f);
  for (const RegimeKind kind : o.regimes) holdings += core::enum_name(kRegimeNames, kind) + " ";
  return fmt::format("loom plan counts 1; {}; hosts {}; split {} seed {}; fanouts {}; batch {}; simulation {}; {}",
                     graph, hosts, core::enum_name(partition::kPartitionMethodNames, o.partition_method),
                     o.train.run.seed, fmt::join(sampling.fanouts, ","), sampling.batch_size,
                     sampling.simulation_epochs, holdings);
}

// The stand-in, generated the first time a host count has to be counted on it.
class LazyStandIn {
 public:
  explicit LazyStandIn(const PlanOptions& o) : options_(o) {}
  const StandIn& get() {
    if (!stand_in_)
      stand_in_ = std::make_unique<StandIn>(*options_.shape, options_.train.batch_size, options_.train.run.seed);
    return *stand_in_;
  }

 private:
  const PlanOptions& options_;
  std::unique_ptr<StandIn> stand_in_;
};

// Splits the graph K ways and counts every step's work under each holding.
CountedSplit count_hosts(const PlanOptions& o, int hosts, LazyStandIn& stand_in, const SamplingSpec& sampling,
                         int depth) {
  const KWayGraph g = o.shape ? stand_in.get().split(hosts, o.partition_method, o.train.run.seed)
                              : kway_from_store(o.store, hosts, o.partition_method, o.train.run.seed);
  std::vector<RemoteRows> holdings;
  variants(o, g.summary(), holdings, depth);
  return {g.summary(), count_epoch(g, sampling, holdings)};
}

HostsResult plan_hosts(const PlanOptions& o, int hosts, LazyStandIn& stand_in, const std::string& graph,
                       const ModelSpec& spec, const GraphFacts& facts, const ClusterProfile& profile) {
  core::Timer timer;
  SamplingSpec sampling{sample::Fanouts(o.train.fanouts, "--fanouts"), o.train.batch_size, o.train.run.seed,
                        o.train.cache.simulation_epochs};
  if (o.shape) sampling.batch_size = stand_in_batch(*o.shape, o.train.batch_size);
  const int depth = o.train.data_path.pipeline_depth > 0 ? o.train.data_path.pipeline_depth : 4;
  const std::string dir = o.counts_dir.empty() ? default_counts_dir(o.store) : o.counts_dir;
  const std::string key = counts_key(o, graph, hosts, sampling);
  std::optional<CountedSplit> counted;
  if (!o.recount && !dir.empty()) counted = read_counts(dir, key);
  const bool counted_now = !counted;
  if (counted_now) {
    counted = count_hosts(o, hosts, stand_in, sampling, depth);
    if (!dir.empty()) keep_counts(dir, key, *counted);
  }
  const SplitSummary& g = counted->split;
  const EpochCounts& counts = counted->counts;
  std::vector<RemoteRows> holdings;
  const std::vector<Variant> asked = variants(o, g, holdings, depth);
  HostsResult result;
  result.hosts = hosts;
  result.steps = counts.steps;
  result.origin = g.origin;
  for (const Variant& v : asked) {
    result.regimes.push_back(predict(v, g, counts, holdings, spec, facts, profile));
    const RegimeResult& r = result.regimes.back();
    if (r.fits && (result.fastest_fitting < 0 ||
                   r.epoch.epoch_seconds < result.regimes[result.fastest_fitting].epoch.epoch_seconds))
      result.fastest_fitting = static_cast<int>(result.regimes.size()) - 1;
  }
  spdlog::info("plan: {} hosts {} in {:.1f} s", hosts,
               counted_now ? "counted and predicted" : "predicted from kept counts", timer.seconds());
  return result;
}

std::string mib(double bytes) { return fmt::format("{:.1f}", bytes / (1024.0 * 1024.0)); }

}  // namespace

Plan make_plan(const PlanOptions& o) {
  check(o);
  Plan plan;
  plan.profile = read_profile(o.cluster);
  plan.cluster = fmt::format("{} ({})", plan.profile.name, o.cluster);
  const GraphFacts facts = graph_facts(o);
  plan.graph = facts.name;
  ModelSpec spec;
  spec.model = o.train.model;
  spec.model.in_features = facts.feat_dim;
  spec.model.num_classes = facts.classes;
  spec.parameter_sizes = parameter_sizes(spec.model);
  spec.row_bytes = facts.feat_dim * facts.feat_bytes;
  spec.wire_row_bytes = facts.feat_dim * (o.train.data_path.wire_dtype == feature::WireDType::kFloat16 ? 2 : 4);
  LazyStandIn stand_in(o);
  const std::string graph = graph_key(o);
  for (const int hosts : o.hosts)
    plan.results.push_back(plan_hosts(o, hosts, stand_in, graph, spec, facts, plan.profile));
  return plan;
}

nlohmann::json Plan::to_json() const {
  nlohmann::json j = {{"graph", graph}, {"cluster", cluster}, {"hosts", nlohmann::json::array()}};
  for (const HostsResult& h : results) {
    nlohmann::json regimes = nlohmann::json::array();
    for (const RegimeResult& r : h.regimes)
      regimes.push_back(
          {{"regime", r.name},
           {"kind", core::enum_name(kRegimeNames, r.kind)},
           {"pipeline_depth", r.pipeline_depth},
           {"epoch", r.epoch.to_json()},
           {"bytes", {{"features", r.feature_bytes}, {"gradients", r.gradient_bytes}, {"device", r.device_bytes}}},
           {"messages", {{"features", r.feature_messages}, {"gradients", r.gradient_messages}}},
           {"remote_rows", r.remote_rows},
           {"memory_per_host", r.memory.to_json()},
           {"fits", r.fits}});
    j["hosts"].push_back(
        {{"hosts", h.hosts},
         {"steps_per_epoch", h.steps},
         {"split", h.origin},
         {"regimes", regimes},
         {"fastest_fitting",
          h.fastest_fitting < 0 ? nlohmann::json(nullptr) : nlohmann::json(h.regimes[h.fastest_fitting].name)}});
  }
  return j;
}

std::string Plan::table() const {
  std::string out = fmt::format(
      "plan for {} on {}\nseconds per epoch; phases: the time the model waited for each "
      "(hidden: what the pipeline overlapped); bytes sent by all hosts\n",
      graph, cluster);
  for (const HostsResult& h : results) {
    out += fmt::format("\n{} hosts, {} steps per host (counts: {})\n", h.hosts, h.steps, h.origin);
    out += fmt::format("{:<26} {:>8} {:>7} {:>7} {:>7} {:>7} {:>8} {:>9} {:>7} {:>10} {:>9} {:>10} {}\n", "regime",
                       "epoch s", "sample", "gather", "fetch", "copy", "compute", "allreduce", "hidden", "feat MiB",
                       "grad MiB", "host GiB", "fits");
    for (const RegimeResult& r : h.regimes) {
      const EpochPrediction& e = r.epoch;
      double hidden = 0;
      for (int ph = 0; ph < kPhases; ++ph) hidden += e.busy[ph] - e.exposed[ph];
      out += fmt::format(
          "{:<26} {:>8.3f} {:>7.3f} {:>7.3f} {:>7.3f} {:>7.3f} {:>8.3f} {:>9.3f} {:>7.3f} {:>10} {:>9} {:>10.2f} {}\n",
          r.name, e.epoch_seconds, e.exposed[kSample], e.exposed[kGather], e.exposed[kFetch], e.exposed[kCopy],
          e.exposed[kCompute], e.exposed[kAllreduce], std::max(0.0, hidden), mib(r.feature_bytes),
          mib(r.gradient_bytes), static_cast<double>(r.memory.host_total()) / (1024.0 * 1024 * 1024),
          r.fits ? "yes" : "NO");
    }
    out += h.fastest_fitting < 0
               ? std::string("no regime fits a host's memory\n")
               : fmt::format("fastest that fits: {} ({:.3f} s an epoch)\n", h.regimes[h.fastest_fitting].name,
                             h.regimes[h.fastest_fitting].epoch.epoch_seconds);
  }
  return out;
}

}  // namespace loom::plan
