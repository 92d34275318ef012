#include "loom/feature/cache_analysis.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "loom/core/error.hpp"
#include "loom/core/log.hpp"
#include "loom/core/memory.hpp"
#include "loom/core/timer.hpp"
#include "loom/feature/analysis_input.hpp"
#include "loom/feature/cache_policy.hpp"
#include "loom/sample/epoch_plan.hpp"

namespace loom::feature {

namespace {

void check(const CacheAnalysisOptions& o) {
  LOOM_CHECK_ARG(!o.alphas.empty(), "--alpha", "give at least one value");
  for (const double a : o.alphas) LOOM_CHECK_ARG(a >= 0, "--alpha", "must be >= 0, got {}", a);
  LOOM_CHECK_ARG(!o.policies.empty(), "--policies", "give at least one policy");
  LOOM_CHECK_ARG(o.epochs > 0, "--epochs", "must be positive, got {}", o.epochs);
  LOOM_CHECK_ARG(o.simulation_epochs >= 0, "--simulation-epochs", "must be >= 0, got {}", o.simulation_epochs);
  LOOM_CHECK_ARG(o.batch_size > 0, "--batch-size", "must be positive, got {}", o.batch_size);
}

// Each policy's ranking for part k, and the remote rows (and their bytes) per epoch it leaves at
// each alpha, given the part's measured inclusion counts (`remote_total`, `remote_bytes`: their
// sums over remote vertices).
void score_policies(const CacheAnalysisOptions& options, const AnalysisInput& in, const CacheContext& context,
                    const std::vector<std::int32_t>& counts, double remote_total, double remote_bytes,
                    CacheAnalysis& result) {
  const int k = context.rank;
  std::int64_t most = 0;
  for (const double a : options.alphas) most = std::max(most, cache_capacity(a, in.book, k));
  for (auto& policy : result.results) {
    core::Timer timer;
    // The oracle's ranking is these very counts: reuse them rather than sample the epochs again.
    const std::vector<double> scores = policy.policy == CachePolicy::kOracle
                                           ? std::vector<double>(counts.begin(), counts.end())
                                           : cache_scores(policy.policy, context);
    const auto cached = select_cache(scores, in.book, k, most);
    policy.seconds += timer.seconds();
    // saved[m], saved_bytes[m]: the counts of the m hottest cached rows, and their bytes.
    std::vector<double> saved(cached.size() + 1, 0.0), saved_bytes(cached.size() + 1, 0.0);
    for (std::size_t i = 0; i < cached.size(); ++i) {
      saved[i + 1] = saved[i] + counts[cached[i]];
      saved_bytes[i + 1] = saved_bytes[i] + counts[cached[i]] * in.row_bytes(cached[i]);
    }
    for (std::size_t a = 0; a < options.alphas.size(); ++a) {
      const auto m = std::min<std::size_t>(cached.size(), cache_capacity(options.alphas[a], in.book, k));
      policy.remote_rows[a] += (remote_total - saved[m]) / options.epochs;
      policy.remote_bytes[a] += (remote_bytes - saved_bytes[m]) / options.epochs;
    }
  }
}

}  // namespace

CacheAnalysis analyze_cache(const CacheAnalysisOptions& options) {
  check(options);
  const AnalysisInput in = open_analysis_input(options.store);
  const sample::Fanouts& fanouts = options.fanouts;
  const graph::Csr& csr = in.topology.csr();
  const sample::NeighborSampler sampler(csr, fanouts);
  const int parts = in.book.num_parts();
  const std::int64_t steps = in.steps_per_epoch(options.batch_size);

  CacheAnalysis result;
  result.store = options.store;
  result.parts = parts;
  result.nodes = in.book.num_nodes();
  result.alphas = options.alphas;
  for (const double a : options.alphas) result.cache_rows.push_back(cache_capacity(a, in.book, 0));
  for (const auto& p : options.policies)
    result.results.push_back(
        {p, std::vector<double>(options.alphas.size(), 0.0), std::vector<double>(options.alphas.size(), 0.0), 0});
  const double epochs = options.epochs;

  for (int k = 0; k < parts; ++k) {
    CacheContext context;
    context.graph = &csr;
    context.book = in.book;
    context.rank = k;
    context.train_ids = in.train_ids[k];
    context.fanouts = fanouts;
    context.batch_size = options.batch_size;
    context.steps = steps;
    context.measured = {options.seed, 0, options.epochs};
    context.simulation_epochs = options.simulation_epochs > 0 ? options.simulation_epochs : options.epochs;

    core::Timer sampling;
    const auto counts = count_inclusions(sampler, context.train_ids, steps, options.batch_size, k, context.measured);
    result.sampling_seconds += sampling.seconds();
    const partition::IdRange mine = in.book.range(k);
    double remote_total = 0, remote_bytes = 0;
    for (std::int64_t v = 0; v < static_cast<std::int64_t>(counts.size()); ++v) {
      result.input_rows += counts[v] / epochs;
      if (!mine.contains(v)) {
        remote_total += counts[v];
        remote_bytes += counts[v] * in.row_bytes(v);
      }
    }
    result.no_cache_remote_rows += remote_total / epochs;
    result.no_cache_remote_bytes += remote_bytes / epochs;
    score_policies(options, in, context, counts, remote_total, remote_bytes, result);
    spdlog::info("cache analysis: part {}/{} done", k + 1, parts);
  }
  return result;
}

nlohmann::json CacheAnalysis::to_json() const {
  nlohmann::json j = {{"store", store},
                      {"parts", parts},
                      {"nodes", nodes},
                      {"alphas", alphas},
                      {"cache_rows_per_rank", cache_rows},
                      {"input_rows_per_epoch", input_rows},
                      {"remote_rows_per_epoch_no_cache", no_cache_remote_rows},
                      {"remote_bytes_per_epoch_no_cache", no_cache_remote_bytes},
                      {"sampling_seconds", sampling_seconds}};
  for (const auto& r : results)
    j["policies"][core::enum_name(kCachePolicyNames, r.policy)] = {{"remote_rows_per_epoch", r.remote_rows},
                                                                   {"remote_bytes_per_epoch", r.remote_bytes},
                                                                   {"ranking_seconds", r.seconds}};
  return j;
}

std::string CacheAnalysis::table() const {
  std::string out = fmt::format(
      "{}: {} parts, {} nodes; input rows per epoch {:.4g}, remote rows per epoch without a "
      "cache {:.4g} ({})\n",
      store, parts, nodes, input_rows, no_cache_remote_rows, core::human_bytes(no_cache_remote_bytes));
  const auto block = [&](const std::string& title, auto value_of) {
    out += title + " by policy and alpha (cache rows per rank = alpha * N / K)\n";
    out += fmt::format("{:<12}", "policy");
    for (const double a : alphas) out += fmt::format(" {:>10}", fmt::format("a={:g}", a));
    out += "\n";
    for (const auto& r : results) {
      out += fmt::format("{:<12}", core::enum_name(kCachePolicyNames, r.policy));
      for (std::size_t a = 0; a < alphas.size(); ++a) out += fmt::format(" {:>10}", value_of(r, a));
      out += "\n";
    }
  };
  block("remote rows per epoch (all ranks)",
        [](const PolicyResult& r, std::size_t a) { return fmt::format("{:.4g}", r.remote_rows[a]); });
  block("remote bytes per epoch (all ranks, float32 wire)",
        [](const PolicyResult& r, std::size_t a) { return core::human_bytes(r.remote_bytes[a]); });
  return out;
}

}  // namespace loom::feature
