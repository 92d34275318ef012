#include "loom/plan/calibrate.hpp"

#include <torch/torch.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

#include <fmt/format.h>

#include "loom/core/error.hpp"
#include "loom/core/memory.hpp"
#include "loom/core/parallel.hpp"
#include "loom/core/rng.hpp"
#include "loom/core/timer.hpp"
#include "loom/graph/generate/rmat.hpp"
#include "loom/nn/message_graph.hpp"
#include "loom/nn/model.hpp"
#include "loom/plan/step_costs.hpp"
#include "loom/sample/neighbor_sampler.hpp"

namespace loom::plan {

namespace {

using Report = std::function<void(const std::string&)>;

std::vector<sample::SampledBatch> sample_batches(const graph::Csr& csr, const CalibrateOptions& o, int count,
                                                 double& seconds) {
  const sample::NeighborSampler sampler(csr, o.fanouts);
  core::Rng rng(o.seed);
  std::vector<sample::SampledBatch> batches;
  core::Timer timer;
  for (int b = 0; b < count; ++b) {
    std::vector<std::int64_t> seeds;
    for (std::int64_t i = 0; i < o.batch_size; ++i)
      seeds.push_back(static_cast<std::int64_t>(rng.next() % static_cast<std::uint64_t>(csr.num_rows())));
    std::sort(seeds.begin(), seeds.end());
    seeds.erase(std::unique(seeds.begin(), seeds.end()), seeds.end());
    batches.push_back(sampler.sample(seeds, sample::batch_seed(o.seed, 0, b)));
  }
  seconds = timer.seconds();
  return batches;
}

double measure_sampling(const graph::Csr& csr, const CalibrateOptions& o, std::vector<sample::SampledBatch>& batches,
                        const Report& report) {
  double seconds = 0;
  sample_batches(csr, o, 2, seconds);  // warm-up: the sampler's scratch, the graph's pages
  batches = sample_batches(csr, o, 16, seconds);
  double edges = 0;
  for (const auto& b : batches) edges += static_cast<double>(b.num_sampled_edges);
  const double rate = edges / seconds / core::num_threads();
  report(fmt::format("sampling: {} batches, {:.0f} edges in {:.3f} s on {} threads: {:.3g} edges/s per core",
                     batches.size(), edges, seconds, core::num_threads(), rate));
  return rate;
}

double measure_gather(const CalibrateOptions& o, std::int64_t rows, const Report& report) {
  std::vector<float> table(static_cast<std::size_t>(rows * o.feat_dim), 1.0f);
  const std::int64_t wanted = std::int64_t{1} << 20;
  std::vector<std::int64_t> ids(static_cast<std::size_t>(wanted));
  core::Rng rng(o.seed + 1);
  for (auto& id : ids) id = static_cast<std::int64_t>(rng.next() % static_cast<std::uint64_t>(rows));
  std::vector<float> out(static_cast<std::size_t>(wanted * o.feat_dim));
  const auto dim = static_cast<std::size_t>(o.feat_dim);
  const auto pass = [&] {
    core::parallel_for(wanted, [&](std::int64_t i) {
      std::copy_n(table.data() + ids[i] * o.feat_dim, dim, out.data() + i * o.feat_dim);
    });
  };
  pass();
  core::Timer timer;
  const int passes = 3;
  for (int p = 0; p < passes; ++p) pass();
  const double seconds = timer.seconds();
  const double bytes = static_cast<double>(passes) * static_cast<double>(wanted * o.feat_dim) * 4;
  const double rate = bytes / seconds / core::num_threads();
  report(fmt::format("gather: {} rows of {} floats from {} in {:.3f} s on {} threads: {:.3g} bytes/s per core",
                     passes * wanted, o.feat_dim, rows, seconds, core::num_threads(), rate));
  return rate;
}

// Seconds per training step of a SAGE model of this width on these batches, and the mean work
// of a step.
double step_seconds(const CalibrateOptions& o, std::int64_t hidden, const std::vector<sample::SampledBatch>& batches,
                    StepWork& work) {
  nn::ModelOptions model;
  model.hidden = hidden;
  model.num_layers = static_cast<int>(o.fanouts.size());
  model.in_features = o.feat_dim;
  model.num_classes = 16;
  auto net = std::make_shared<nn::GnnModel>(model);
  torch::optim::Adam adam(net->parameters(), torch::optim::AdamOptions(1e-3));
  // Each batch's tensors are made before the clock starts: the step alone is timed.
  struct Input {
    std::vector<nn::MessageGraph> blocks;
    torch::Tensor x, y;
    StepWork work;
  };
  std::vector<Input> inputs;
  for (int s = 0; s <= o.steps; ++s) {
    const auto& batch = batches[static_cast<std::size_t>(s) % batches.size()];
    Input in;
    std::vector<LayerCount> layers;
    for (const auto& b : batch.blocks) {
      in.blocks.push_back(nn::MessageGraph::from_block(b));
      layers.push_back({b.num_dst, b.num_src, b.num_edges()});
    }
    in.x = torch::randn({batch.blocks.front().num_src, o.feat_dim});
    in.y = torch::randint(16, {batch.blocks.back().num_dst}, torch::kLong);
    in.work = step_work(model, layers);
    inputs.push_back(std::move(in));
  }
  const auto step = [&](const Input& in) {
    adam.zero_grad();
    torch::nn::functional::cross_entropy(net->forward(in.x, in.blocks), in.y).backward();
    adam.step();
  };
  step(inputs.front());  // warm-up
  core::Timer timer;
  work = {};
  for (int s = 1; s <= o.steps; ++s) {
    step(inputs[static_cast<std::size_t>(s)]);
    work.flops += inputs[static_cast<std::size_t>(s)].work.flops / o.steps;
    work.values += inputs[static_cast<std::size_t>(s)].work.values / o.steps;
  }
  return timer.seconds() / o.steps;
}

// Solves the normal equations of seconds ~ sum_j x_j * column_j (least squares) for the columns
// chosen; false where the system is singular.
bool least_squares(const std::vector<std::array<double, 3>>& rows, const std::vector<double>& seconds,
                   const std::array<bool, 3>& used, std::array<double, 3>& x) {
  std::vector<int> cols;
  for (int j = 0; j < 3; ++j)
    if (used[j]) cols.push_back(j);
  const auto n = cols.size();
  std::vector<std::vector<double>> a(n, std::vector<double>(n + 1, 0.0));
  for (std::size_t r = 0; r < rows.size(); ++r)
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t k = 0; k < n; ++k) a[i][k] += rows[r][cols[i]] * rows[r][cols[k]];
      a[i][n] += rows[r][cols[i]] * seconds[r];
    }
  for (std::size_t i = 0; i < n; ++i) {  // Gauss-Jordan with partial pivoting
    std::size_t pivot = i;
    for (std::size_t k = i + 1; k < n; ++k)
      if (std::abs(a[k][i]) > std::abs(a[pivot][i])) pivot = k;
    std::swap(a[i], a[pivot]);
    if (std::abs(a[i][i]) < 1e-300) return false;
    for (std::size_t k = 0; k < n; ++k) {
      if (k == i) continue;
      const double f = a[k][i] / a[i][i];
      for (std::size_t c = i; c <= n; ++c) a[k][c] -= f * a[i][c];
    }
  }
  x = {0, 0, 0};
  for (std::size_t i = 0; i < n; ++i) x[cols[i]] = a[i][n] / a[i][i];
  return true;
}

// seconds = overhead + flops / flops rate + values / values rate through the measured steps (least
// squares, each term >= 0: a term whose fit goes negative is left out and the rest fitted again).
ComputeRates fit_compute(const std::vector<StepWork>& work, const std::vector<double>& seconds) {
  std::vector<std::array<double, 3>> rows;
  for (const StepWork& w : work) rows.push_back({1.0, w.flops, w.values});
  for (const std::array<bool, 3> used :
       {std::array<bool, 3>{true, true, true}, {false, true, true}, {true, true, false}, {false, true, false}}) {
    std::array<double, 3> x{};
    if (!least_squares(rows, seconds, used, x)) continue;
    if (x[0] < 0 || x[1] <= 0 || x[2] < 0) continue;
    // A rate whose term was left out is one that costs nothing measurable: infinite, written as huge.
    return {1 / x[1], x[2] > 0 ? 1 / x[2] : 1e30, x[0]};
  }
  throw Error("plan calibrate: the compute measurements fit no line with positive rates (too noisy: raise --steps)");
}

}  // namespace

ClusterProfile calibrate(const CalibrateOptions& o, const Report& report) {
  LOOM_CHECK_ARG(o.scale >= 10 && o.scale <= 24, "--scale", "must be in 10..24, got {}", o.scale);
  LOOM_CHECK_ARG(!o.hidden.empty(), "--hidden", "give at least one width");
  LOOM_CHECK_ARG(o.steps > 0, "--steps", "must be positive, got {}", o.steps);
  ClusterProfile p;
  p.name = o.name;
  p.cores = core::num_threads();
  p.sources = fmt::format(
      "host and compute: measured by loom plan calibrate; network: as given (bandwidth {:.4g} B/s, latency {:.3g} s, "
      "host {:.4g} B/s and {:.3g} s a message)",
      o.network.bandwidth, o.network.latency, o.network.host_bandwidth, o.network.host_latency);
  p.memory_bytes = core::available_bytes();
  core::Timer timer;
  graph::generate::RmatOptions rmat;
  rmat.scale = o.scale;
  rmat.seed = o.seed;
  const graph::GraphData data = graph::generate::generate_rmat(rmat);
  const graph::Csr csr = graph::Csr::from_vectors(data.indptr, data.indices, data.num_rows());
  report(fmt::format("graph: R-MAT scale {}, {} nodes, {} edges ({:.2f} s)", o.scale, csr.num_rows(), csr.num_edges(),
                     timer.seconds()));
  std::vector<sample::SampledBatch> batches;
  p.sampled_edges_per_core_second = measure_sampling(csr, o, batches, report);
  p.gathered_bytes_per_core_second = measure_gather(o, csr.num_rows(), report);
  // Compute: each width on batches of the given size and of a quarter of it, so that the dense and
  // the aggregation terms vary apart.
  CalibrateOptions small = o;
  small.batch_size = std::max<std::int64_t>(1, o.batch_size / 4);
  double unused = 0;
  const std::vector<sample::SampledBatch> small_batches = sample_batches(csr, small, 8, unused);
  std::vector<StepWork> work;
  std::vector<double> seconds;
  torch::set_num_threads(1);  // the rates per core, measured on one
  for (const std::int64_t hidden : o.hidden)
    for (const std::vector<sample::SampledBatch>* set : {&std::as_const(batches), &small_batches}) {
      core::Timer width;
      StepWork w;
      seconds.push_back(step_seconds(o, hidden, *set, w));
      work.push_back(w);
      report(
          fmt::format("compute: SAGE {}x{}, batch {}: {:.4f} s a step, {:.3g} flops, {:.3g} aggregated values "
                      "({:.2f} s)",
                      o.fanouts.size(), hidden, set == &batches ? o.batch_size : small.batch_size, seconds.back(),
                      w.flops, w.values, width.seconds()));
    }
  p.cpu = fit_compute(work, seconds);
  report(fmt::format("compute per core: {:.3g} flops/s, {:.3g} values/s; {:.4f} s overhead a step", p.cpu.flops,
                     p.cpu.values, p.cpu.step_overhead));
  p.network = o.network;
  return p;
}

}  // namespace loom::plan
