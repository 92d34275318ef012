// Sampler throughput and the per-step compute of mini-batch training, in this order:
//  1. Sampled edges per second of NeighborSampler (fanouts 15,10,5, batch 1024, up to 200 batches
//     of shuffled nodes) at 1 and 2 threads, on a Facebook-sized graph and an R-MAT graph
//     (LOOM_BENCH_RMAT_SCALE, default 20, edge factor 16), or on a store (LOOM_BENCH_STORE=dir).
//  2. Sampling workers of one thread each sampling distinct batches at once (as the pipeline's
//     samplers run, --sample-workers): batches per second at each count of LOOM_BENCH_WORKERS
//     (default 1,2; bench_gpu.sh's sampler section runs 1,2,4,8,16).
//  3. One training step of a 3-layer GraphSAGE (hidden 256, fanouts 15,10,5, batch 1024, Adam) on
//     the Facebook-sized graph with 128 random features (or the store's features), split into
//     sample / gather / forward / backward / optimizer time, and the implied epoch time over a 60%
//     training split.
// Prints markdown tables (bench/results/sampler.md records runs; bench/bench_sampler.sh sets pyg-lib
// beside it). LOOM_BENCH_THREADS=N measures N threads only (default 1 and 2); LOOM_BENCH_STEP=0
// skips part 3. Sampling reads a store's topology mapped, as training does; the allocator is set as
// `loom train` sets it (nn::configure_cpu_runtime).
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <string>
#include <thread>
#include <ctime>

#include <fmt/format.h>
#include <torch/torch.h>

#include "loom/core/parallel.hpp"
#include "loom/core/rng.hpp"
#include "loom/core/timer.hpp"
#include "loom/graph/build_csr.hpp"
#include "loom/graph/generate/rmat.hpp"
#include "loom/graph/store.hpp"
#include "loom/nn/model.hpp"
#include "loom/nn/runtime.hpp"
#include "loom/sample/neighbor_sampler.hpp"

namespace {

using namespace loom;

struct BenchGraph {
  std::string name;
  graph::Csr csr;
  torch::Tensor features;  // may be undefined
  std::int64_t classes = 4;
};

// 22,470 nodes and 170,823 undirected edges like Facebook (musae page-page), half of the edge
// ends drawn among 1% hub nodes for a skewed degree distribution.
BenchGraph facebook_like() {
  const std::int64_t n = 22470, m = 170823;
  core::Rng rng(1);
  graph::EdgeList list;
  list.num_nodes = n;
  for (std::int64_t e = 0; e < m; ++e) {
    list.src.push_back(static_cast<std::int64_t>(rng.below(n)));
    list.dst.push_back(static_cast<std::int64_t>(e % 2 == 0 ? rng.below(n / 100) : rng.below(n)));
  }
  auto built = graph::build_csr(list, graph::CsrBuildOptions{});
  torch::manual_seed(1);
  return {"facebook-sized random", graph::Csr::from_vectors(std::move(built.indptr), built.indices, n),
          torch::randn({n, 128}), 4};
}

BenchGraph rmat(int scale) {
  graph::generate::RmatOptions options;
  options.scale = scale;
  options.seed = 1;
  graph::GraphData data = graph::generate::generate_rmat(options);
  const std::int64_t n = data.num_rows();
  return {
      "rmat scale " + std::to_string(scale), graph::Csr::from_vectors(std::move(data.indptr), data.indices, n), {}, 4};
}

BenchGraph from_store(const std::string& dir) {
  const auto store = graph::GraphStore::open(dir);
  BenchGraph g{dir, store.csr(), {}, 4};  // the mapped topology, as training samples it
  if (store.has_feat() && store.feat().dtype() == format::DType::kFloat32) {
    const auto f = store.feat().span<float>();
    g.features = torch::from_blob(const_cast<float*>(f.data()), {store.num_nodes(), store.meta().feat_dim}).clone();
  }
  if (store.has_label()) g.classes = std::max<std::int64_t>(2, store.meta().num_classes);
  return g;
}

// CPU seconds of the whole process (all threads): with one thread, the wall time an idle machine
// would give, whatever else is running.
double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

std::vector<std::int64_t> shuffled_nodes(std::int64_t n, std::int64_t count, std::uint64_t seed) {
  std::vector<std::int64_t> nodes(static_cast<std::size_t>(n));
  std::iota(nodes.begin(), nodes.end(), 0);
  core::Rng rng(seed);
  core::shuffle(nodes.begin(), nodes.end(), rng);
  nodes.resize(static_cast<std::size_t>(std::min(n, count)));
  return nodes;
}

// LOOM_BENCH_THREADS=1 runs one thread count only (default: 1 and 2).
std::vector<int> thread_counts() {
  const char* env = std::getenv("LOOM_BENCH_THREADS");
  if (env) return {std::atoi(env)};
  return {1, 2};
}

void bench_sampler(const BenchGraph& g) {
  const sample::NeighborSampler sampler(g.csr, {15, 10, 5});
  const auto order = shuffled_nodes(g.csr.num_rows(), std::min<std::int64_t>(g.csr.num_rows(), 200 * 1024), 7);
  for (const int threads : thread_counts()) {
    core::set_num_threads(threads);
    std::int64_t edges = 0, batches = 0;
    core::Timer timer;
    const double cpu_start = cpu_seconds();
    for (std::size_t b = 0; b < order.size(); b += 1024) {
      const std::size_t end = std::min(order.size(), b + 1024);
      const auto batch = sampler.sample(std::span(order).subspan(b, end - b), sample::batch_seed(1, 0, batches));
      edges += batch.num_sampled_edges;
      ++batches;
    }
    const double s = timer.seconds(), cpu = cpu_seconds() - cpu_start;
    std::printf("| %s | %lld | %lld | %d | %lld | %.2f (%.2f) | %.1f |\n", g.name.c_str(),
                static_cast<long long>(g.csr.num_rows()), static_cast<long long>(g.csr.num_edges()), threads,
                static_cast<long long>(batches), 1e3 * s / batches, 1e3 * cpu / batches, edges / s / 1e6);
  }
}

// LOOM_BENCH_WORKERS=1,2,4 lists the sampling worker counts of the scaling section (default 1,2).
std::vector<int> worker_counts() {
  const char* env = std::getenv("LOOM_BENCH_WORKERS");
  std::vector<int> counts;
  for (const std::int32_t w : sample::parse_fanouts(env ? env : "1,2", "LOOM_BENCH_WORKERS")) counts.push_back(w);
  return counts;
}

// W workers of one thread each (as BatchPipeline's samplers run) sample distinct batches at once:
// batches per second, and the speed-up over one worker.
void bench_workers(const BenchGraph& g) {
  const sample::NeighborSampler sampler(g.csr, {15, 10, 5});
  const auto order = shuffled_nodes(g.csr.num_rows(), std::min<std::int64_t>(g.csr.num_rows(), 200 * 1024), 7);
  const auto batches = static_cast<std::int64_t>((order.size() + 1023) / 1024);
  double one_worker = 0;
  for (const int workers : worker_counts()) {
    std::atomic<std::int64_t> next{0};
    core::Timer timer;
    std::vector<std::thread> threads;
    for (int w = 0; w < workers; ++w) {
      threads.emplace_back([&] {
        core::set_num_threads(1);
        for (std::int64_t b = next++; b < batches; b = next++) {
          const std::size_t begin = static_cast<std::size_t>(b) * 1024;
          const std::size_t end = std::min(order.size(), begin + 1024);
          sampler.sample(std::span(order).subspan(begin, end - begin), sample::batch_seed(1, 0, b));
        }
      });
    }
    for (auto& t : threads) t.join();
    const double rate = static_cast<double>(batches) / timer.seconds();
    if (one_worker == 0) one_worker = workers == 1 ? rate : 0;
    std::printf("| %s | %d | %lld | %.1f | %s |\n", g.name.c_str(), workers, static_cast<long long>(batches), rate,
                one_worker > 0 ? fmt::format("{:.2f}", rate / one_worker).c_str() : "-");
  }
}

// The blocks of one batch, input layer first: what a training step computes on.
void describe_blocks(const BenchGraph& g) {
  const sample::NeighborSampler sampler(g.csr, {15, 10, 5});
  const auto seeds = shuffled_nodes(g.csr.num_rows(), 1024, 3);
  const auto batch = sampler.sample(seeds, 1);
  std::string shape;
  for (const auto& block : batch.blocks) {
    shape += fmt::format(" [{} dst <- {} src, {} edges]", block.num_dst, block.num_src, block.num_edges());
  }
  std::printf("Blocks of one batch (input layer first):%s\n\n", shape.c_str());
}

void bench_sage_step(const BenchGraph& g, int threads) {
  nn::configure_cpu_runtime(threads);
  const std::int64_t n = g.csr.num_rows();
  const torch::Tensor features = g.features.defined() ? g.features : torch::randn({n, 128});
  const auto labels = torch::randint(g.classes, {n}, torch::kLong);
  const sample::NeighborSampler sampler(g.csr, {15, 10, 5});
  torch::manual_seed(0);
  nn::GnnModel model({.kind = nn::ModelKind::kSage,
                      .num_layers = 3,
                      .in_features = features.size(1),
                      .hidden = 256,
                      .num_classes = g.classes,
                      .dropout = 0.5});
  torch::optim::Adam opt(model.parameters(), torch::optim::AdamOptions(0.003));
  const std::int64_t train_size = n * 6 / 10;
  const auto train = shuffled_nodes(n, train_size, 3);
  core::TimeAccumulator t, cpu;  // wall and process CPU seconds per phase
  std::int64_t steps = 0, input_rows = 0, edges = 0;
  const int warmup = 2;
  for (std::size_t b = 0; b < train.size(); b += 1024, ++steps) {
    if (steps == warmup) t.clear(), cpu.clear(), input_rows = 0, edges = 0;
    const std::size_t end = std::min(train.size(), b + 1024);
    const auto seeds = std::span(train).subspan(b, end - b);
    core::Timer timer;
    double cpu_start = cpu_seconds();
    auto phase = [&](const char* name) {
      t.add(name, timer.seconds());
      cpu.add(name, cpu_seconds() - cpu_start);
      timer.reset();
      cpu_start = cpu_seconds();
    };
    const auto batch = sampler.sample(seeds, sample::batch_seed(1, 0, steps));
    std::vector<nn::MessageGraph> blocks;
    for (const auto& block : batch.blocks) blocks.push_back(nn::MessageGraph::from_block(block));
    phase("sample");
    const auto ids = torch::from_blob(const_cast<std::int64_t*>(batch.input_nodes.data()),
                                      {static_cast<std::int64_t>(batch.input_nodes.size())}, torch::kLong);
    const auto x = features.index_select(0, ids);
    const auto y = labels.index_select(0, ids.slice(0, 0, static_cast<std::int64_t>(seeds.size())));
    phase("gather");
    const auto loss = torch::cross_entropy_loss(model.forward(x, blocks), y);
    phase("forward");
    opt.zero_grad();
    loss.backward();
    phase("backward");
    opt.step();
    phase("optimizer");
    input_rows += static_cast<std::int64_t>(batch.input_nodes.size());
    edges += batch.num_sampled_edges;
  }
  const double measured = static_cast<double>(steps - warmup);
  double total = 0, total_cpu = 0;
  for (const auto& [name, s] : t.totals()) total += s;
  for (const auto& [name, s] : cpu.totals()) total_cpu += s;
  auto ms = [&](const core::TimeAccumulator& acc, const char* name) { return 1e3 * acc.get(name) / measured; };
  std::printf(
      "| %d | %lld | %.0f | %.0f | %.1f (%.1f) | %.1f (%.1f) | %.1f (%.1f) | %.1f (%.1f) | %.1f (%.1f) | "
      "%.1f (%.1f) | %.2f |\n",
      threads, static_cast<long long>(steps), input_rows / measured, edges / measured, ms(t, "sample"),
      ms(cpu, "sample"), ms(t, "gather"), ms(cpu, "gather"), ms(t, "forward"), ms(cpu, "forward"), ms(t, "backward"),
      ms(cpu, "backward"), ms(t, "optimizer"), ms(cpu, "optimizer"), 1e3 * total / measured, 1e3 * total_cpu / measured,
      total / measured * steps);
}

}  // namespace

int main() {
  nn::configure_cpu_runtime(0);  // the allocator settings of `loom train`
  const char* store = std::getenv("LOOM_BENCH_STORE");
  const char* scale_env = std::getenv("LOOM_BENCH_RMAT_SCALE");
  const int scale = scale_env ? std::atoi(scale_env) : 20;
  const BenchGraph fb = store ? from_store(store) : facebook_like();

  std::printf("## Sampler throughput (fanouts 15,10,5, batch 1024)\n\n");
  std::printf(
      "| graph | nodes | edges (directed) | threads | batches | ms/batch wall (cpu) | M sampled edges/s (wall) |\n");
  std::printf("|---|---|---|---|---|---|---|\n");
  bench_sampler(fb);
  if (scale > 0) bench_sampler(rmat(scale));

  std::printf("\n## Sampling workers of one thread each (fanouts 15,10,5, batch 1024; %d cores)\n\n",
              nn::machine_cores());
  std::printf("| graph | workers | batches | batches/s | speed-up over 1 worker |\n|---|---|---|---|---|\n");
  bench_workers(fb);

  if (const char* step = std::getenv("LOOM_BENCH_STEP"); step != nullptr && std::atoi(step) == 0) return 0;
  std::printf("\n## 3-layer SAGE training step on %s (hidden 256, fanouts 15,10,5, batch 1024)\n\n", fb.name.c_str());
  describe_blocks(fb);
  std::printf("Per step, ms wall (ms process CPU); epoch s = wall step time x steps.\n\n");
  std::printf(
      "| threads | steps/epoch | input rows/step | edges/step | sample | gather | forward | "
      "backward | adam | step | epoch s |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (const int threads : thread_counts()) bench_sage_step(fb, threads);
  return 0;
}
