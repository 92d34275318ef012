// Full-graph layouts and chunks: stage/way/chunk placement and its errors, balanced layer
// splits, and chunk graphs whose aggregation with current outside rows equals the whole graph's.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "loom/core/error.hpp"
#include "loom/core/rng.hpp"
#include "loom/graph/build_csr.hpp"
#include "loom/nn/deep_model.hpp"
#include "loom/train/fullgraph/chunk_set.hpp"
#include "loom/train/fullgraph/fullgraph_layout.hpp"
#include "loom/train/fullgraph/layer_costs.hpp"

namespace loom::train {
namespace {

TEST(FullGraphLayout, ModesPlaceStagesWaysAndChunks) {
  const auto graph = make_layout(FullGraphMode::kGraph, 4, 2, 4, 0, 0, 8);
  EXPECT_EQ(graph.stages, 1);
  EXPECT_EQ(graph.ways, 4);
  EXPECT_EQ(graph.chunks, 1);
  EXPECT_EQ(graph.way, 2);
  const auto pipe = make_layout(FullGraphMode::kPipe, 4, 3, 8, 0, 0, 8);
  EXPECT_EQ(pipe.stages, 4);
  EXPECT_EQ(pipe.chunks, 8);
  EXPECT_EQ(pipe.stage, 3);
  EXPECT_TRUE(pipe.last_stage());
  const auto hybrid = make_layout(FullGraphMode::kHybrid, 4, 3, 8, 2, 0, 8);
  EXPECT_EQ(hybrid.stages, 2);
  EXPECT_EQ(hybrid.ways, 2);
  EXPECT_EQ(hybrid.chunks, 4);
  EXPECT_EQ(hybrid.stage, 1);
  EXPECT_EQ(hybrid.way, 1);
  EXPECT_EQ(hybrid.part_of(1, 2), 6);
  EXPECT_EQ(hybrid.way_of_part(6), 1);
}

void expect_error(const std::function<void()>& f, const std::string& text) {
  try {
    f();
    ADD_FAILURE() << "expected an error mentioning " << text;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
  }
}

TEST(FullGraphLayout, RejectsLayoutsThatCannotWork) {
  expect_error([] { make_layout(FullGraphMode::kGraph, 4, 0, 2, 0, 0, 8); }, "one part per rank");
  expect_error([] { make_layout(FullGraphMode::kPipe, 4, 0, 2, 0, 0, 8); }, "at least one chunk per stage");
  expect_error([] { make_layout(FullGraphMode::kPipe, 4, 0, 8, 0, 0, 3); }, "need a layer per stage");
  expect_error([] { make_layout(FullGraphMode::kPipe, 2, 0, 4, 0, 8, 8); }, "--chunks");
  expect_error([] { make_layout(FullGraphMode::kHybrid, 4, 0, 8, 3, 0, 8); }, "--ways");
  expect_error([] { make_layout(FullGraphMode::kHybrid, 4, 0, 6, 4, 0, 8); }, "split evenly");
  expect_error([] { core::parse_enum(kFullGraphModeNames, "tensor", "--mode"); }, "--mode");
}

TEST(BalanceLayers, EqualCostsSplitEvenly) {
  const std::vector<double> costs(32, 1.0);
  EXPECT_EQ(balance_layers(costs, 4), (std::vector<int>{0, 8, 16, 24, 32}));
  EXPECT_EQ(balance_layers(costs, 1), (std::vector<int>{0, 32}));
  EXPECT_EQ(balance_layers(std::vector<double>(3, 1.0), 3), (std::vector<int>{0, 1, 2, 3}));
}

TEST(BalanceLayers, ExpensiveEndsGetFewerLayers) {
  std::vector<double> costs(8, 1.0);
  costs.front() = 5;  // e.g. the input projection on a wide feature matrix
  const auto bounds = balance_layers(costs, 2);
  EXPECT_EQ(bounds, (std::vector<int>{0, 2, 8}));  // stages cost 6 and 6
}

graph::Csr random_graph(std::int64_t n, std::uint64_t seed) {
  core::Rng rng(seed);
  graph::EdgeList list;
  list.num_nodes = n;
  for (std::int64_t e = 0; e < n * 4; ++e) {
    list.src.push_back(static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(n))));
    list.dst.push_back(static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(n))));
  }
  auto built = graph::build_csr(list, graph::CsrBuildOptions{});
  return graph::Csr::from_vectors(std::move(built.indptr), built.indices, n);
}

// Every hidden layer of a model gets the same counted cost, so the split of identical layers is
// even, and the split is the same in every run (nothing is timed).
TEST(LayerCosts, IdenticalLayersCostTheSameAndSplitEvenly) {
  nn::DeepModelOptions o;
  o.num_layers = 8;
  o.in_features = 12;
  o.hidden = 16;
  o.num_classes = 3;
  nn::DeepGnn model(o);
  const auto csr = random_graph(600, 3);
  const auto costs = estimate_layer_costs(model, csr);
  ASSERT_EQ(costs.size(), 8u);
  for (std::size_t l = 1; l + 1 < costs.size(); ++l) EXPECT_EQ(costs[l], costs[0]);
  EXPECT_GT(costs.back(), costs[0]);  // the output part is added to the last layer
  EXPECT_EQ(balance_layers(costs, 4), (std::vector<int>{0, 2, 4, 6, 8}));
}

TEST(ChunkSet, ChunkedLayersWithCurrentOutsideRowsEqualTheWholeGraph) {
  const std::int64_t n = 300, hidden = 8;
  const graph::Csr csr = random_graph(n, 3);
  const partition::PartitionBook book({0, 70, 150, 220, 300});
  for (auto kind : {nn::DeepKind::kGcnii, nn::DeepKind::kGcn, nn::DeepKind::kSage, nn::DeepKind::kResGcn}) {
    torch::manual_seed(1);
    nn::DeepModelOptions o;
    o.kind = kind;
    o.num_layers = 2;
    o.in_features = 5;
    o.hidden = hidden;
    o.num_classes = 3;
    o.dropout = 0;
    nn::DeepGnn model(o);
    model.eval();
    const auto x = torch::randn({n, hidden}), h0 = torch::randn({n, hidden});
    const auto whole_graph = nn::MessageGraph::from_csr(csr);
    const auto whole = model.layer(1, whole_graph, x, h0);
    // Pipe layout on one rank: 4 chunks; hybrid-like: 2 ways of 2 chunks (way 1 here).
    for (const auto& layout :
         {make_layout(FullGraphMode::kPipe, 1, 0, 4, 0, 0, 2), make_layout(FullGraphMode::kHybrid, 2, 1, 4, 2, 0, 2)}) {
      const ChunkSet chunks(csr, book, layout);
      std::int64_t rows = 0;
      for (const Chunk& c : chunks.chunks()) {
        const auto own = x.slice(0, c.rows.begin, c.rows.end);
        std::vector<std::int64_t> ids(c.outside.begin(), c.outside.end());
        const auto outside = x.index_select(0, torch::tensor(ids, torch::kLong));
        const auto out = model.layer(1, c.graph, torch::cat({own, outside}), h0.slice(0, c.rows.begin, c.rows.end));
        EXPECT_TRUE(torch::allclose(out, whole.slice(0, c.rows.begin, c.rows.end), 1e-5, 1e-5))
            << nn::deep_kind_name(kind) << " chunk " << c.index;
        rows += c.size();
        for (std::int64_t id : c.outside) EXPECT_FALSE(c.rows.contains(id));
      }
      EXPECT_EQ(rows, chunks.own().size());
      for (std::int64_t m : chunks.mirrors()) EXPECT_FALSE(chunks.own().contains(m));
      EXPECT_EQ(chunks.num_slots(), chunks.own().size() + static_cast<std::int64_t>(chunks.mirrors().size()));
    }
  }
}

}  // namespace
}  // namespace loom::train
