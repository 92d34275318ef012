#include "loom/plan/calibrate.hpp"

#include <torch/torch.h>

#include <algorithm>

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

// Seconds per training step of a SAGE model of this width on these batches.
double step_seconds(const CalibrateOptions& o, std::int64_t hidden, const std::vector<sample::SampledBatch>& batches,
                    double& flops) {
  nn::ModelOptions model;
  model.hidden = hidden;
  model.num_layers = static_cast<int>(o.fanouts.size());
  model.in_features = o.feat_dim;
  model.num_classes = 16;
  auto net = std::make_shared<nn::GnnModel>(model);
  torch::optim::Adam adam(net->parameters(), torch::optim::AdamOptions(1e-3));
  const auto step = [&](const sample::SampledBatch& batch) {
    std::vector<nn::MessageGraph> blocks;
    for (const auto& b : batch.blocks) blocks.push_back(nn::MessageGraph::from_block(b));
    const torch::Tensor x = torch::randn({batch.blocks.front().num_src, o.feat_dim});
    const torch::Tensor y = torch::randint(16, {batch.blocks.back().num_dst}, torch::kLong);
    adam.zero_grad();
    torch::nn::functional::cross_entropy(net->forward(x, blocks), y).backward();
    adam.step();
  };
  step(batches.front());
  core::Timer timer;
  flops = 0;
  for (int s = 0; s < o.steps; ++s) {
    const auto& batch = batches[static_cast<std::size_t>(s) % batches.size()];
    step(batch);
    std::vector<LayerCount> layers;
    for (const auto& b : batch.blocks) layers.push_back({b.num_dst, b.num_src, b.num_edges()});
    flops += step_flops(model, layers);
  }
  flops /= o.steps;
  return timer.seconds() / o.steps;
}

// The least-squares line seconds = overhead + flops / rate through the measured points.
void fit_compute(const std::vector<double>& flops, const std::vector<double>& seconds, double& rate,
                 double& overhead) {
  const double n = static_cast<double>(flops.size());
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < flops.size(); ++i) {
    sx += flops[i];
    sy += seconds[i];
    sxx += flops[i] * flops[i];
    sxy += flops[i] * seconds[i];
  }
  const double slope = n * sxx - sx * sx > 0 ? (n * sxy - sx * sy) / (n * sxx - sx * sx) : 0;
  overhead = (sy - slope * sx) / n;
  if (slope <= 0 || overhead < 0) {  // too few or too noisy points for a line: through the origin
    overhead = 0;
    rate = sx / sy;
    return;
  }
  rate = 1 / slope;
}

}  // namespace

ClusterProfile calibrate(const CalibrateOptions& o, const Report& report) {
  LOOM_CHECK_ARG(o.scale >= 10 && o.scale <= 24, "--scale", "must be in 10..24, got {}", o.scale);
  LOOM_CHECK_ARG(!o.hidden.empty(), "--hidden", "give at least one width");
  LOOM_CHECK_ARG(o.steps > 0, "--steps", "must be positive, got {}", o.steps);
  sample::check_fanouts(o.fanouts, "--fanouts");
  ClusterProfile p;
  p.name = o.name;
  p.sources = {"measured by loom plan calibrate", "network: the options given"};
  p.cores = core::num_threads();
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
  std::vector<double> flops, seconds;
  for (const std::int64_t hidden : o.hidden) {
    core::Timer width;
    double f = 0;
    seconds.push_back(step_seconds(o, hidden, batches, f));
    flops.push_back(f);
    report(fmt::format("compute: SAGE {}x{}: {:.4f} s a step, {:.3g} flops ({:.2f} s)", o.fanouts.size(), hidden,
                       seconds.back(), f, width.seconds()));
  }
  fit_compute(flops, seconds, p.cpu_flops, p.cpu_step_overhead);
  report(fmt::format("compute: {:.3g} flops/s, {:.4f} s overhead a step", p.cpu_flops, p.cpu_step_overhead));
  p.network = o.network;
  return p;
}

}  // namespace loom::plan
