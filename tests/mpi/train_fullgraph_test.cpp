// Multi-rank full-graph training: graph parallelism reproduces one-process training exactly,
// pipelined and hybrid modes train and move the bytes the cost formulas give, every mode writes
// its predictions keyed by original id, and bad layouts fail on every rank together.

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "loom/comm/communicator.hpp"
#include "loom/format/npy.hpp"
#include "loom/graph/store.hpp"
#include "loom/graph/generate/sbm.hpp"
#include "loom/partition/partitioned_store.hpp"
#include "loom/partition/write_partitioned.hpp"
#include "loom/train/fullgraph/fullgraph_trainer.hpp"
#include "mpi/mpi_support.hpp"

namespace loom::train {
namespace {

constexpr std::int64_t kNodes = 1200;

// The same SBM graph (dir/sbm) partitioned into each of `part_counts` (dir/parts-<k>).
void make_parts(const comm::Communicator& world, const std::string& dir, std::initializer_list<int> part_counts) {
  if (world.rank() == 0) {
    graph::generate::SbmOptions o;
    o.nodes = kNodes;
    o.classes = 4;
    o.avg_degree = 10;
    o.homophily = 0.85;
    o.feat_dim = 16;
    o.feat_noise = 0.8;
    o.train = 0.3;
    o.valid = 0.2;
    o.seed = 11;
    graph::generate::generate_sbm_store(o, dir + "/sbm", {});
    for (int k : part_counts) {
      partition::PartitionOptions p;
      p.source = dir + "/sbm";
      p.output = dir + "/parts-" + std::to_string(k);
      p.num_parts = k;
      partition::partition_store(p);
    }
  }
  world.barrier();
}

FullGraphOptions options_for(const std::string& store, FullGraphMode mode) {
  FullGraphOptions o;
  o.store = store;
  o.mode = mode;
  o.model.kind = nn::DeepKind::kGcnii;
  o.model.num_layers = 8;
  o.model.hidden = 16;
  o.model.dropout = 0.2;
  o.run.epochs = 20;
  o.run.lr = 0.02;
  o.run.rank.threads = 1;
  o.run.eval.every = o.run.epochs;  // the last epoch only
  o.output.quiet = true;
  return o;
}

std::uint64_t bytes(const FullGraphReport& r, const char* channel) {
  return r.epochs.front().at("bytes").at(channel).get<std::uint64_t>();
}

TEST(FullGraphMpi, GraphParallelismEqualsOneProcess) {
  auto world = comm::Communicator::world();
  const int p = world.size();
  const mpi_test::SharedScratch scratch(world, "fg-graph");
  const std::string& dir = scratch.path();
  make_parts(world, dir, {1, p});
  for (auto kind : {nn::DeepKind::kGcnii, nn::DeepKind::kSage, nn::DeepKind::kResGcn}) {
    FullGraphOptions o = options_for(dir + "/parts-1", FullGraphMode::kGraph);
    o.model.kind = kind;
    o.model.dropout = 0;  // dropout masks differ by rank; everything else must match exactly
    o.run.epochs = 3;
    auto alone = world.split(world.rank(), 0);
    const FullGraphReport reference = run_fullgraph(o, alone);
    o.store = dir + "/parts-" + std::to_string(p);
    const FullGraphReport parallel = run_fullgraph(o, world);
    for (int e = 0; e < o.run.epochs; ++e)
      EXPECT_NEAR(parallel.epochs[e]["loss"].get<double>(), reference.epochs[e]["loss"].get<double>(), 2e-4)
          << nn::deep_kind_name(kind) << " epoch " << e;
    EXPECT_NEAR(parallel.final_test, reference.final_test, 1e-9);
    // Every layer moves each partition's mirrors forward and their gradients back.
    const auto mirrors = parallel.setup["mirrors"].get<std::int64_t>();
    EXPECT_GT(mirrors, 0);
    EXPECT_EQ(bytes(parallel, "halo"),
              static_cast<std::uint64_t>(2 * 4 * mirrors * o.model.num_layers * o.model.hidden));
    EXPECT_EQ(bytes(parallel, "activations"), 0u);
  }
}

TEST(FullGraphMpi, PipelinedModelParallelismTrainsAndMovesOneChunkPerBoundary) {
  auto world = comm::Communicator::world();
  const int p = world.size();
  const mpi_test::SharedScratch scratch(world, "fg-pipe");
  const std::string& dir = scratch.path();
  make_parts(world, dir, {1, 2 * p});
  FullGraphOptions graph = options_for(dir + "/parts-1", FullGraphMode::kGraph);
  graph.run.epochs = 80;
  auto alone = world.split(world.rank(), 0);
  const FullGraphReport reference = run_fullgraph(graph, alone);

  FullGraphOptions o = options_for(dir + "/parts-" + std::to_string(2 * p), FullGraphMode::kPipe);
  o.run.epochs = 80;  // historical embeddings converge more slowly at first
  const FullGraphReport pipe = run_fullgraph(o, world);
  EXPECT_EQ(pipe.setup["stages"].get<int>(), p);
  EXPECT_EQ(pipe.setup["layer_bounds"].size(), static_cast<std::size_t>(p + 1));
  const auto expected = static_cast<std::uint64_t>((p - 1) * kNodes * o.model.hidden * 4);
  EXPECT_EQ(bytes(pipe, "activations"), expected);
  EXPECT_EQ(bytes(pipe, "gradients"), expected);
  EXPECT_EQ(bytes(pipe, "halo"), 0u);
  EXPECT_LT(pipe.epochs.back()["loss"].get<double>(), 0.6 * pipe.epochs.front()["loss"].get<double>());
  EXPECT_GT(pipe.final_test, reference.final_test - 0.05) << "graph-parallel reference " << reference.final_test;

  // Without the convergence aids it still trains (fixed order, history held 2 epochs, no cross-chunk gradients).
  o.shuffle_chunks = false;
  o.history_window = 2;
  o.cross_grad = CrossGrad::kDrop;
  o.run.eval.every = 0;  // and never evaluates
  const FullGraphReport plain = run_fullgraph(o, world);
  EXPECT_LT(plain.epochs.back()["loss"].get<double>(), plain.epochs.front()["loss"].get<double>());
  for (const auto& e : plain.epochs) EXPECT_FALSE(e.contains("test_accuracy"));
}

// Evaluation is exact full-graph inference in every mode: with (almost) untrained weights, pipe
// and hybrid score exactly as one process does, although their historical buffers are stale.
TEST(FullGraphMpi, EvaluationIsExactInEveryMode) {
  auto world = comm::Communicator::world();
  const int p = world.size();
  const mpi_test::SharedScratch scratch(world, "fg-eval");
  const std::string& dir = scratch.path();
  make_parts(world, dir, {1, 2 * p});
  FullGraphOptions o = options_for(dir + "/parts-1", FullGraphMode::kGraph);
  o.run.epochs = 1;
  o.run.lr = 1e-12;
  o.model.dropout = 0;
  auto alone = world.split(world.rank(), 0);
  const FullGraphReport reference = run_fullgraph(o, alone);
  o.store = dir + "/parts-" + std::to_string(2 * p);
  for (auto mode : {FullGraphMode::kPipe, FullGraphMode::kHybrid}) {
    if (mode == FullGraphMode::kHybrid && p % 2 != 0) continue;
    o.mode = mode;
    const FullGraphReport chunked = run_fullgraph(o, world);
    EXPECT_NEAR(chunked.final_valid, reference.final_valid, 1e-9) << fullgraph_mode_name(mode);
    EXPECT_NEAR(chunked.final_test, reference.final_test, 1e-9) << fullgraph_mode_name(mode);
    EXPECT_GT(chunked.epochs.back()["eval_bytes"].get<std::uint64_t>(), 0u);
  }
}

// `d` with its nodes renamed so that node v of class c becomes (j * classes + c), j its rank
// among the nodes of class c: the hash partitioner (id mod classes) then cuts along the classes.
graph::GraphData interleave_classes(const graph::GraphData& d) {
  const std::int64_t n = d.num_rows(), classes = d.num_classes;
  std::vector<std::int64_t> new_id(static_cast<std::size_t>(n)), seen(static_cast<std::size_t>(classes), 0);
  for (std::int64_t v = 0; v < n; ++v) new_id[v] = seen[d.label[v]]++ * classes + d.label[v];
  graph::GraphData r = d;
  std::vector<std::vector<std::int64_t>> rows(static_cast<std::size_t>(n));
  for (std::int64_t v = 0; v < n; ++v) {
    for (auto e = d.indptr[v]; e < d.indptr[v + 1]; ++e) rows[new_id[v]].push_back(new_id[d.indices[e]]);
    std::sort(rows[new_id[v]].begin(), rows[new_id[v]].end());
    r.label[new_id[v]] = d.label[v];
    std::copy_n(d.feat.begin() + v * d.feat_dim, d.feat_dim, r.feat.begin() + new_id[v] * d.feat_dim);
  }
  r.indices.clear();
  for (std::int64_t u = 0; u < n; ++u) {
    r.indices.insert(r.indices.end(), rows[u].begin(), rows[u].end());
    r.indptr[u + 1] = static_cast<std::int64_t>(r.indices.size());
  }
  for (auto& [name, ids] : r.splits)
    for (auto& id : ids) id = new_id[id];
  return r;
}

// On rank 0: an SBM of `classes` classes without edges between them, renamed by
// interleave_classes, stored under dir/sbm and hash-partitioned (id mod parts) into dir/parts-1
// and dir/parts-<parts>; every rank returns once it is written.
void write_separated_classes(const comm::Communicator& world, const std::string& dir, int classes, int parts,
                             std::uint64_t seed) {
  if (world.rank() == 0) {
    graph::generate::SbmOptions g;
    g.nodes = kNodes;
    g.classes = classes;
    g.avg_degree = 10;
    g.homophily = 1.0;
    g.feat_dim = 16;
    g.feat_noise = 0.8;
    g.train = 0.3;
    g.valid = 0.2;
    g.seed = seed;
    graph::write_graph_store(interleave_classes(graph::generate::generate_sbm(g)), dir + "/sbm", {});
    for (int k : {1, parts}) {
      partition::PartitionOptions o;
      o.source = dir + "/sbm";
      o.output = dir + "/parts-" + std::to_string(k);
      o.num_parts = k;
      o.method = partition::PartitionMethod::kHash;
      partition::partition_store(o);
    }
  }
  world.barrier();
}

// Where no edge crosses chunks, historical values are never read and no cross-chunk gradient
// exists, so pipe and hybrid training must equal one-process training step for step: a check of
// the pipeline's forward, backward and per-epoch weight update, not of its approximation.
TEST(FullGraphMpi, ChunkedTrainingIsExactWhenNoEdgeCrossesChunks) {
  auto world = comm::Communicator::world();
  const int p = world.size();
  const mpi_test::SharedScratch scratch(world, "fg-exact");
  const std::string& dir = scratch.path();
  write_separated_classes(world, dir, 2 * p, 2 * p, 5);  // chunk k holds class k
  const std::string chunked_store = dir + "/parts-" + std::to_string(2 * p);
  ASSERT_EQ(partition::PartitionedStore::open(chunked_store).meta().quality.edge_cut.cut, 0)
      << "the chunks should be the classes";
  FullGraphOptions o = options_for(dir + "/parts-1", FullGraphMode::kGraph);
  o.model.dropout = 0;
  o.run.epochs = 5;
  auto alone = world.split(world.rank(), 0);
  const FullGraphReport reference = run_fullgraph(o, alone);
  o.store = chunked_store;
  for (auto mode : {FullGraphMode::kPipe, FullGraphMode::kHybrid}) {
    if (mode == FullGraphMode::kHybrid && p % 2 != 0) continue;
    o.mode = mode;
    const FullGraphReport chunked = run_fullgraph(o, world);
    for (int e = 0; e < o.run.epochs; ++e)
      EXPECT_NEAR(chunked.epochs[e]["loss"].get<double>(), reference.epochs[e]["loss"].get<double>(), 2e-4)
          << fullgraph_mode_name(mode) << " epoch " << e;
    EXPECT_NEAR(chunked.final_test, reference.final_test, 1e-9) << fullgraph_mode_name(mode);
  }
}

// Hybrid across ways: where every edge between chunks joins chunk c of one way to chunk c of
// the other, the two ways process both ends at the same step, so values and gradients are always
// current and hybrid training equals one-process training step for step, whatever the estimate
// of late cross-chunk gradients (none are late; scaling these would be wrong).
TEST(FullGraphMpi, HybridIsExactWhereWaysShareOnlyChunksOfTheSameIndex) {
  auto world = comm::Communicator::world();
  if (world.size() % 2 != 0) GTEST_SKIP() << "hybrid with 2 ways needs an even rank count";
  const int p = world.size();
  const mpi_test::SharedScratch scratch(world, "fg-hybrid-exact");
  const std::string& dir = scratch.path();
  // Class k is split between chunk k of way 0 (part k) and chunk k of way 1 (part p + k).
  write_separated_classes(world, dir, p, 2 * p, 9);
  FullGraphOptions o = options_for(dir + "/parts-1", FullGraphMode::kGraph);
  o.model.dropout = 0;
  o.run.epochs = 5;
  auto alone = world.split(world.rank(), 0);
  const FullGraphReport reference = run_fullgraph(o, alone);
  o.store = dir + "/parts-" + std::to_string(2 * p);
  o.mode = FullGraphMode::kHybrid;
  o.ways = 2;
  for (const CrossGrad estimate : {CrossGrad::kUnbiased, CrossGrad::kDrop}) {
    o.cross_grad = estimate;
    const FullGraphReport hybrid = run_fullgraph(o, world);
    ASSERT_GT(hybrid.epochs.front()["bytes"]["halo"].get<std::uint64_t>(), 0u) << "the ways should share edges";
    for (int e = 0; e < o.run.epochs; ++e)
      EXPECT_NEAR(hybrid.epochs[e]["loss"].get<double>(), reference.epochs[e]["loss"].get<double>(), 2e-4)
          << core::enum_name(kCrossGradNames, estimate) << " epoch " << e;
  }
}

TEST(FullGraphMpi, HybridSplitsStagesIntoWays) {
  auto world = comm::Communicator::world();
  if (world.size() % 2 != 0) GTEST_SKIP() << "hybrid with 2 ways needs an even rank count";
  const int p = world.size();
  const mpi_test::SharedScratch scratch(world, "fg-hybrid");
  const std::string& dir = scratch.path();
  make_parts(world, dir, {p});
  FullGraphOptions o = options_for(dir + "/parts-" + std::to_string(p), FullGraphMode::kHybrid);
  o.ways = 2;
  const FullGraphReport hybrid = run_fullgraph(o, world);
  const int stages = p / 2;
  EXPECT_EQ(hybrid.setup["stages"].get<int>(), stages);
  EXPECT_EQ(bytes(hybrid, "activations"), static_cast<std::uint64_t>((stages - 1) * kNodes * o.model.hidden * 4));
  EXPECT_GT(bytes(hybrid, "halo"), 0u);
  EXPECT_LT(hybrid.epochs.back()["loss"].get<double>(), 0.6 * hybrid.epochs.front()["loss"].get<double>());
  EXPECT_GT(hybrid.final_test, 0.5);
}

TEST(FullGraphMpi, StaleHaloTrainsWithTheSameBytes) {
  auto world = comm::Communicator::world();
  const int p = world.size();
  const mpi_test::SharedScratch scratch(world, "fg-stale");
  const std::string& dir = scratch.path();
  make_parts(world, dir, {p});
  FullGraphOptions o = options_for(dir + "/parts-" + std::to_string(p), FullGraphMode::kGraph);
  // Evaluation reads current halos, which a model trained on one-epoch-old ones matches only
  // where the weights move slowly between epochs: a smaller step than elsewhere, more epochs.
  o.run.lr = 0.005;
  o.run.epochs = 40;
  const FullGraphReport fresh = run_fullgraph(o, world);
  o.stale_halo = true;
  const FullGraphReport stale = run_fullgraph(o, world);
  EXPECT_EQ(bytes(stale, "halo"), bytes(fresh, "halo"));
  EXPECT_LT(stale.epochs.back()["loss"].get<double>(), 0.8 * stale.epochs.front()["loss"].get<double>());
  EXPECT_GT(stale.final_test, fresh.final_test - 0.05);
}

// Checkpoints carry the historical buffers (pipe, hybrid) and the late gradients (stale halo,
// stale cross-chunk gradients) besides the weights, so a resumed run continues exactly in every mode.
TEST(FullGraphMpi, ResumedTrainingContinuesIdenticallyInEveryMode) {
  auto world = comm::Communicator::world();
  const int p = world.size();
  const mpi_test::SharedScratch scratch(world, "fg-resume");
  const std::string& dir = scratch.path();
  make_parts(world, dir, {p});
  struct Case {
    FullGraphMode mode;
    bool stale_halo;
    CrossGrad cross_grad;
  };
  const CrossGrad unbiased = CrossGrad::kUnbiased, stale = CrossGrad::kStale;
  const std::vector<Case> cases = {{FullGraphMode::kGraph, false, unbiased},  {FullGraphMode::kGraph, true, unbiased},
                                   {FullGraphMode::kPipe, false, unbiased},   {FullGraphMode::kPipe, false, stale},
                                   {FullGraphMode::kHybrid, false, unbiased}, {FullGraphMode::kHybrid, false, stale}};
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    if (c.mode == FullGraphMode::kHybrid && p % 2 != 0) continue;
    const std::string name = fullgraph_mode_name(c.mode) + (c.stale_halo ? " (stale halo)" : "") + " " +
                             core::enum_name(kCrossGradNames, c.cross_grad);
    FullGraphOptions o = options_for(dir + "/parts-" + std::to_string(p), c.mode);
    o.stale_halo = c.stale_halo;
    o.cross_grad = c.cross_grad;
    o.run.epochs = 4;
    const FullGraphReport straight = run_fullgraph(o, world);
    o.checkpoint.dir = dir + "/ckpt-" + std::to_string(i);
    o.checkpoint.every = 1;
    o.run.epochs = 2;
    run_fullgraph(o, world);
    o.run.epochs = 4;
    o.checkpoint.resume = true;
    const FullGraphReport resumed = run_fullgraph(o, world);
    ASSERT_EQ(resumed.epochs.size(), 4u) << name;
    for (int e = 2; e < 4; ++e)
      EXPECT_NEAR(resumed.epochs[e]["loss"].get<double>(), straight.epochs[e]["loss"].get<double>(), 1e-6)
          << name << " epoch " << e;
  }
}

// With the weights held still (a negligible step) and no dropout, the historical values become
// exact after a few epochs, and with --cross-grad stale every chunk's gradient holds each other
// chunk's contribution exactly once (this epoch's or last epoch's) in any chunk order: the
// summed gradient is then the full-graph gradient, in pipe and hybrid modes. Dropping the late
// ones gives another gradient.
TEST(FullGraphMpi, StaleCrossChunkGradientsAddUpToTheFullGraphGradient) {
  auto world = comm::Communicator::world();
  const int p = world.size();
  const mpi_test::SharedScratch scratch(world, "fg-crossgrad");
  const std::string& dir = scratch.path();
  make_parts(world, dir, {1, 2 * p});
  FullGraphOptions o = options_for(dir + "/parts-1", FullGraphMode::kGraph);
  o.model.num_layers = 4;
  o.model.dropout = 0;
  o.run.lr = 1e-12;
  o.run.epochs = 2 * o.model.num_layers + 4;  // history exact after L+1 epochs, late gradients after L more
  auto alone = world.split(world.rank(), 0);
  const double exact = run_fullgraph(o, alone).epochs.back()["grad_norm"].get<double>();
  ASSERT_GT(exact, 0);
  o.store = dir + "/parts-" + std::to_string(2 * p);
  o.cross_grad = CrossGrad::kStale;
  for (auto mode : {FullGraphMode::kPipe, FullGraphMode::kHybrid}) {
    if (mode == FullGraphMode::kHybrid && p % 2 != 0) continue;
    o.mode = mode;
    const FullGraphReport stale = run_fullgraph(o, world);
    EXPECT_NEAR(stale.epochs.back()["grad_norm"].get<double>() / exact, 1.0, 1e-4) << fullgraph_mode_name(mode);
  }
  o.mode = FullGraphMode::kPipe;
  o.cross_grad = CrossGrad::kDrop;
  const FullGraphReport dropped = run_fullgraph(o, world);
  EXPECT_GT(std::abs(dropped.epochs.back()["grad_norm"].get<double>() / exact - 1.0), 1e-2);
}

void expect_agreed_error(const FullGraphOptions& o, comm::Communicator& world, const std::string& text) {
  try {
    run_fullgraph(o, world);
    ADD_FAILURE() << "expected an error mentioning " << text;
  } catch (const comm::AgreedError& e) {
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
  }
}

TEST(FullGraphMpi, BadLayoutsAndOutputsFailOnEveryRank) {
  auto world = comm::Communicator::world();
  const int p = world.size();
  const mpi_test::SharedScratch scratch(world, "fg-bad");
  const std::string& dir = scratch.path();
  make_parts(world, dir, {1, p});
  FullGraphOptions o = options_for(dir + "/parts-1", FullGraphMode::kGraph);
  expect_agreed_error(o, world, "one part per rank");
  o = options_for(dir + "/parts-" + std::to_string(p), FullGraphMode::kPipe);
  o.model.num_layers = p - 1;
  expect_agreed_error(o, world, "need a layer per stage");
  o = options_for(dir + "/parts-1", FullGraphMode::kPipe);
  expect_agreed_error(o, world, "at least one chunk per stage");
  o = options_for(dir + "/parts-" + std::to_string(p), FullGraphMode::kPipe);
  o.chunks = 2 * p;
  expect_agreed_error(o, world, "--chunks");
  o.chunks = 0;
  o.stale_halo = true;
  expect_agreed_error(o, world, "--stale-halo");
  o = options_for(dir + "/sbm", FullGraphMode::kGraph);
  expect_agreed_error(o, world, "partitioned store");
  o = options_for(dir + "/parts-" + std::to_string(p), FullGraphMode::kGraph);
  o.output.save_embeddings = true;
  expect_agreed_error(o, world, "--save-embeddings");
  o.output.dir = dir + "/sbm";  // exists: refused before any training, on every rank
  expect_agreed_error(o, world, "--output");
}

// The outputs hold every node once, keyed by original id, in every mode: predictions scored
// against the source graph's own labels give the test accuracy the run reports.
TEST(FullGraphMpi, WritesPredictionsKeyedByOriginalIdsInEveryMode) {
  auto world = comm::Communicator::world();
  const int p = world.size();
  const mpi_test::SharedScratch scratch(world, "fg-out");
  const std::string& dir = scratch.path();
  make_parts(world, dir, {p, 2 * p});
  std::vector<std::pair<FullGraphMode, std::string>> runs = {{FullGraphMode::kGraph, "/parts-" + std::to_string(p)},
                                                             {FullGraphMode::kPipe, "/parts-" + std::to_string(2 * p)}};
  if (p % 2 == 0) runs.emplace_back(FullGraphMode::kHybrid, "/parts-" + std::to_string(2 * p));
  for (const auto& [mode, parts] : runs) {
    FullGraphOptions o = options_for(dir + parts, mode);
    o.run.epochs = 3;
    o.output.dir = dir + "/out-" + fullgraph_mode_name(mode);
    o.output.save_embeddings = true;
    const FullGraphReport report = run_fullgraph(o, world);
    if (world.rank() == 0) {
      const auto source = graph::GraphStore::open(dir + "/sbm");
      const auto predictions_file = format::NpyArray::map(o.output.dir + "/predictions.npy");
      const auto ids_file = format::NpyArray::map(o.output.dir + "/node_ids.npy");
      const auto predictions = predictions_file.span<std::int64_t>();
      const auto ids = ids_file.span<std::int64_t>();
      const auto embeddings = format::NpyArray::map(o.output.dir + "/embeddings.npy");
      ASSERT_EQ(predictions.size(), static_cast<std::size_t>(kNodes));
      ASSERT_EQ(ids.size(), static_cast<std::size_t>(kNodes));
      EXPECT_EQ(embeddings.rows(), kNodes);
      EXPECT_EQ(embeddings.cols(), o.model.hidden);
      std::vector<std::int64_t> row_of(kNodes, -1);
      for (std::size_t r = 0; r < ids.size(); ++r) {
        ASSERT_TRUE(ids[r] >= 0 && ids[r] < kNodes && row_of[ids[r]] < 0) << "id " << ids[r];
        row_of[ids[r]] = static_cast<std::int64_t>(r);
      }
      const auto labels = source.label().span<std::int64_t>();
      const auto test = source.split("test");
      std::int64_t correct = 0;
      for (const std::int64_t v : test) correct += predictions[row_of[v]] == labels[v];
      EXPECT_NEAR(static_cast<double>(correct) / static_cast<double>(test.size()), report.final_test, 1e-12)
          << fullgraph_mode_name(mode);
    }
    world.barrier();
  }
}

}  // namespace
}  // namespace loom::train
