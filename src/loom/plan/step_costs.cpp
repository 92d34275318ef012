#include "loom/plan/step_costs.hpp"

#include <algorithm>

#include "loom/nn/gradient_sync.hpp"

namespace loom::plan {

namespace {

constexpr double kIdBytes = 8;  // a requested id (int64)

// This rank's two rounds: ids to the owners it fetches from, rows back to those who fetch from it.
Traffic2 fetch_traffic(const std::vector<std::vector<StepCount>>& parts, std::int64_t step, std::size_t holding, int k,
                       double scale, std::int64_t wire_row_bytes) {
  Traffic2 t;
  const int count = static_cast<int>(parts.size());
  for (int p = 0; p < count; ++p) {
    if (p == k) continue;
    const double asked = static_cast<double>(parts[k][step].fetched[holding][p]) * scale;   // k asks p
    const double served = static_cast<double>(parts[p][step].fetched[holding][k]) * scale;  // p asks k
    if (asked > 0) {
      t.ids.messages_out += 1;
      t.ids.bytes_out += static_cast<std::uint64_t>(asked * kIdBytes);
      t.rows.messages_in += 1;
      t.rows.bytes_in += static_cast<std::uint64_t>(asked * static_cast<double>(wire_row_bytes));
    }
    if (served > 0) {
      t.ids.messages_in += 1;
      t.ids.bytes_in += static_cast<std::uint64_t>(served * kIdBytes);
      t.rows.messages_out += 1;
      t.rows.bytes_out += static_cast<std::uint64_t>(served * static_cast<double>(wire_row_bytes));
    }
  }
  return t;
}

double rows_served(const std::vector<std::vector<StepCount>>& parts, std::int64_t step, std::size_t holding, int k) {
  double served = 0;
  for (std::size_t p = 0; p < parts.size(); ++p)
    if (static_cast<int>(p) != k) served += static_cast<double>(parts[p][step].fetched[holding][k]);
  return served;
}

double block_index_bytes(const std::vector<LayerCount>& layers) {
  double bytes = 0;
  for (const LayerCount& l : layers) bytes += 4.0 * static_cast<double>(l.edges) + 8.0 * static_cast<double>(l.dst + 1);
  return bytes;
}

}  // namespace

comm::Traffic ring_allreduce(int ranks, std::int64_t bytes) {
  if (ranks <= 1) return {};
  const auto p = static_cast<std::uint64_t>(ranks);
  const std::uint64_t moved = 2 * (p - 1) * static_cast<std::uint64_t>(bytes) / p;
  return {2 * (p - 1), moved, 2 * (p - 1), moved};
}

StepWork step_work(const nn::ModelOptions& model, const std::vector<LayerCount>& layers) {
  StepWork work;
  for (std::size_t l = 0; l < layers.size(); ++l) {
    const double in = l == 0 ? static_cast<double>(model.in_features) : static_cast<double>(model.hidden);
    const double out =
        l + 1 == layers.size() ? static_cast<double>(model.num_classes) : static_cast<double>(model.hidden);
    const auto dst = static_cast<double>(layers[l].dst), src = static_cast<double>(layers[l].src),
               edges = static_cast<double>(layers[l].edges);
    switch (model.kind) {
      case nn::ModelKind::kSage:
        work.flops += 3 * 2 * 2 * dst * in * out;
        work.values += 3 * edges * in;
        break;
      case nn::ModelKind::kGcn:
        work.flops += 3 * 2 * dst * in * out;
        work.values += 3 * edges * out;
        break;
      default: {  // GAT: a projection of every source row per head, attention over the edges
        const double heads = static_cast<double>(std::max<std::int64_t>(1, nn::gat_heads(model)));
        work.flops += 3 * 2 * src * in * out;
        work.values += 3 * 3 * edges * out * heads;
      }
    }
  }
  return work;
}

EpochCosts cost_epoch(const EpochCounts& counts, double scale, const ModelSpec& spec, const ClusterProfile& profile,
                      std::size_t holding, bool replicated) {
  EpochCosts costs;
  costs.on_gpu = profile.gpu.present();
  const int parts = static_cast<int>(counts.parts.size());
  const double cores = profile.cores;
  const ComputeRates& rates = costs.on_gpu ? profile.gpu.compute : profile.cpu;
  const double share = costs.on_gpu ? 1 : cores;  // the host's rates are per core
  costs.fetch_seconds.assign(static_cast<std::size_t>(counts.steps), 0.0);
  costs.parts.resize(static_cast<std::size_t>(parts));
  for (int k = 0; k < parts; ++k) {
    for (std::int64_t s = 0; s < counts.steps; ++s) {
      const StepCount& step = counts.parts[k][s];
      StepCost c;
      double edges = 0;
      for (const LayerCount& l : step.layers) edges += static_cast<double>(l.edges);
      c.sample = edges * scale / (profile.sampled_edges_per_core_second * cores);
      double fetched = 0;
      if (!replicated) {
        for (const std::int64_t rows : step.fetched[holding]) fetched += static_cast<double>(rows);
        c.fetch = fetch_traffic(counts.parts, s, holding, k, scale, spec.wire_row_bytes);
        c.fetch_host = profile.network.host_seconds(c.fetch.ids) + profile.network.host_seconds(c.fetch.rows);
      }
      const double read_here =
          static_cast<double>(step.input_rows) - fetched + (replicated ? 0 : rows_served(counts.parts, s, holding, k));
      c.gather =
          read_here * scale * static_cast<double>(spec.row_bytes) / (profile.gathered_bytes_per_core_second * cores);
      if (costs.on_gpu) {
        c.copy_bytes = (static_cast<double>(step.input_rows) * static_cast<double>(spec.row_bytes) +
                        block_index_bytes(step.layers)) *
                       scale;
        c.copy = c.copy_bytes / profile.gpu.copy_bandwidth;
      }
      const StepWork work = step_work(spec.model, step.layers);
      c.compute =
          rates.step_overhead + scale * (work.flops / (rates.flops * share) + work.values / (rates.values * share));
      costs.parts[k].push_back(c);
    }
  }
  for (std::int64_t s = 0; s < counts.steps; ++s) {
    double ids = 0, rows = 0;
    for (int k = 0; k < parts; ++k) {
      ids = std::max(ids, profile.network.seconds(costs.parts[k][s].fetch.ids));
      rows = std::max(rows, profile.network.seconds(costs.parts[k][s].fetch.rows));
    }
    costs.fetch_seconds[s] = ids + rows;
  }
  for (const std::size_t elements :
       nn::gradient_buckets(spec.parameter_sizes, nn::kGradientBucketBytes, nn::kAgreementFlags)) {
    const comm::Traffic bucket = ring_allreduce(parts, static_cast<std::int64_t>(elements * sizeof(float)));
    costs.allreduce.messages_out += bucket.messages_out;
    costs.allreduce.bytes_out += bucket.bytes_out;
    costs.allreduce.messages_in += bucket.messages_in;
    costs.allreduce.bytes_in += bucket.bytes_in;
    costs.allreduce_seconds += profile.network.seconds(bucket);
  }
  return costs;
}

}  // namespace loom::plan
