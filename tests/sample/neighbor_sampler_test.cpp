#include "loom/sample/neighbor_sampler.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <set>

#include <gtest/gtest.h>

#include "loom/core/error.hpp"
#include "loom/core/parallel.hpp"
#include "loom/core/rng.hpp"
#include "loom/graph/build_csr.hpp"
#include "loom/sample/id_map.hpp"

namespace loom::sample {
namespace {

// Random symmetric graph with a skewed degree distribution (some hubs above every fanout).
graph::Csr random_graph(std::int64_t nodes, std::int64_t edges, std::uint64_t seed) {
  core::Rng rng(seed);
  graph::EdgeList list;
  list.num_nodes = nodes;
  for (std::int64_t e = 0; e < edges; ++e) {
    const auto u = static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(nodes)));
    // Half the edges go to the first 1% of nodes: those become hubs.
    const auto hub_range = static_cast<std::uint64_t>(std::max<std::int64_t>(1, nodes / 100));
    const auto v =
        static_cast<std::int64_t>(e % 2 == 0 ? rng.below(hub_range) : rng.below(static_cast<std::uint64_t>(nodes)));
    list.src.push_back(u);
    list.dst.push_back(v);
  }
  auto built = graph::build_csr(list, graph::CsrBuildOptions{});
  return graph::Csr::from_vectors(std::move(built.indptr), built.indices, nodes);
}

// A star: node 0 linked to nodes 1..degree.
graph::Csr star(std::int64_t degree) {
  graph::EdgeList list;
  list.num_nodes = degree + 1;
  for (std::int64_t v = 1; v <= degree; ++v) {
    list.src.push_back(0);
    list.dst.push_back(v);
  }
  auto built = graph::build_csr(list, graph::CsrBuildOptions{});
  return graph::Csr::from_vectors(std::move(built.indptr), built.indices, degree + 1);
}

std::vector<std::int64_t> first_nodes(std::int64_t n, std::int64_t stride, std::int64_t num_nodes) {
  std::vector<std::int64_t> seeds;
  for (std::int64_t i = 0; i < n; ++i) seeds.push_back((i * stride) % num_nodes);
  return seeds;
}

std::vector<std::int64_t> neighbors_of(const graph::Csr& g, std::int64_t v) {
  return g.visit([&](auto view) {
    const auto n = view.neighbors(v);
    return std::vector<std::int64_t>(n.begin(), n.end());
  });
}

TEST(NeighborSampler, BatchInvariantsHold) {
  const auto g = random_graph(3000, 20000, 1);
  const NeighborSampler sampler(g, {15, 10, 5});
  const auto seeds = first_nodes(500, 7, 3000);
  const SampledBatch batch = sampler.sample(seeds, 42);
  EXPECT_NO_THROW(validate(batch));
  ASSERT_EQ(batch.blocks.size(), 3u);
  EXPECT_EQ(batch.seeds, seeds);
  // Input nodes are distinct global ids.
  std::set<std::int64_t> distinct(batch.input_nodes.begin(), batch.input_nodes.end());
  EXPECT_EQ(distinct.size(), batch.input_nodes.size());
}

TEST(NeighborSampler, EverySampledEdgeExistsWithoutDuplicatesAndRespectsFanout) {
  const auto g = random_graph(2000, 15000, 2);
  const Fanouts fanouts{6, 4, 3};
  const NeighborSampler sampler(g, fanouts);
  const SampledBatch batch = sampler.sample(first_nodes(300, 13, 2000), 7);
  for (std::size_t l = 0; l < batch.blocks.size(); ++l) {
    const Block& b = batch.blocks[l];
    const std::int32_t fanout = fanouts[fanouts.size() - 1 - l];  // blocks run input -> output
    for (std::int64_t i = 0; i < b.num_dst; ++i) {
      const std::int64_t dst = batch.input_nodes[i];
      const auto all = neighbors_of(g, dst);
      std::set<std::int64_t> seen;
      for (std::int64_t e = b.indptr[i]; e < b.indptr[i + 1]; ++e) {
        const std::int64_t src = batch.input_nodes[b.indices[e]];
        EXPECT_TRUE(std::binary_search(all.begin(), all.end(), src)) << dst << " -> " << src << " is not an edge";
        EXPECT_TRUE(seen.insert(src).second) << "duplicate neighbour " << src << " of " << dst;
      }
      const auto deg = static_cast<std::int64_t>(all.size());
      EXPECT_EQ(b.indptr[i + 1] - b.indptr[i], std::min<std::int64_t>(deg, fanout));
      if (deg <= fanout) {
        EXPECT_EQ(seen, std::set<std::int64_t>(all.begin(), all.end()));
      }
    }
  }
}

TEST(NeighborSampler, FullNeighborhoodTakesEveryNeighbour) {
  const auto g = random_graph(500, 3000, 3);
  const auto sampler = NeighborSampler(g, Fanouts::all_neighbours(2));
  const SampledBatch batch = sampler.sample(first_nodes(40, 11, 500), 1);
  std::int64_t expected_edges = 0;
  for (const Block& b : batch.blocks) {
    for (std::int64_t i = 0; i < b.num_dst; ++i) {
      const auto all = neighbors_of(g, batch.input_nodes[i]);
      std::vector<std::int64_t> got;
      for (std::int64_t e = b.indptr[i]; e < b.indptr[i + 1]; ++e) got.push_back(batch.input_nodes[b.indices[e]]);
      EXPECT_EQ(got, all);  // all neighbours, in CSR order
      expected_edges += static_cast<std::int64_t>(all.size());
    }
  }
  EXPECT_EQ(batch.num_sampled_edges, expected_edges);
}

TEST(NeighborSampler, SameOutputAtOneAndTwoThreads) {
  const auto g = random_graph(6000, 60000, 4);
  const NeighborSampler sampler(g, {15, 10, 5});
  const auto seeds = first_nodes(1024, 5, 6000);
  core::set_num_threads(1);
  const SampledBatch one = sampler.sample(seeds, 99);
  core::set_num_threads(2);
  const SampledBatch two = sampler.sample(seeds, 99);
  core::set_num_threads(0);
  EXPECT_EQ(one.input_nodes, two.input_nodes);
  ASSERT_EQ(one.blocks.size(), two.blocks.size());
  for (std::size_t l = 0; l < one.blocks.size(); ++l) {
    EXPECT_EQ(one.blocks[l].indptr, two.blocks[l].indptr);
    EXPECT_EQ(one.blocks[l].indices, two.blocks[l].indices);
  }
  // A different seed draws a different sample.
  const SampledBatch other = sampler.sample(seeds, 100);
  EXPECT_NE(one.input_nodes, other.input_nodes);
}

TEST(NeighborSampler, CsrOrderReadsGiveTheSameSample) {
  const auto g = random_graph(6000, 60000, 4);
  NeighborSampler sampler(g, {15, 10, 5});
  EXPECT_FALSE(sampler.reads_in_csr_order()) << "a small graph is read in batch order";
  const auto seeds = first_nodes(1024, 5, 6000);
  const SampledBatch batch_order = sampler.sample(seeds, 99);
  for (const std::int64_t window : {NeighborSampler::kReadWindowBytes, std::int64_t{4096}, std::int64_t{1}}) {
    SCOPED_TRACE(window);  // one window, a window per few pages, a window per list
    sampler.set_reads_in_csr_order(true, window);
    const SampledBatch csr_order = sampler.sample(seeds, 99);
    EXPECT_EQ(batch_order.input_nodes, csr_order.input_nodes);
    ASSERT_EQ(batch_order.blocks.size(), csr_order.blocks.size());
    for (std::size_t l = 0; l < batch_order.blocks.size(); ++l) {
      EXPECT_EQ(batch_order.blocks[l].indptr, csr_order.blocks[l].indptr);
      EXPECT_EQ(batch_order.blocks[l].indices, csr_order.blocks[l].indices);
    }
  }
}

// Each neighbour of a node of degree d is drawn with probability fanout / d.
void expect_uniform_frequency(std::int64_t degree, std::int32_t fanout, int draws) {
  const auto g = star(degree);
  const NeighborSampler sampler(g, {fanout});
  std::vector<int> count(static_cast<std::size_t>(degree + 1), 0);
  const std::vector<std::int64_t> seeds = {0};
  for (int d = 0; d < draws; ++d) {
    const SampledBatch batch = sampler.sample(seeds, batch_seed(5, 0, d));
    ASSERT_EQ(batch.num_sampled_edges, fanout);
    for (const std::int32_t s : batch.blocks[0].indices) ++count[batch.input_nodes[s]];
  }
  const double p = static_cast<double>(fanout) / static_cast<double>(degree);
  const double mean = draws * p;
  const double sd = std::sqrt(draws * p * (1 - p));
  for (std::int64_t v = 1; v <= degree; ++v) {
    EXPECT_NEAR(count[v], mean, 5 * sd) << "neighbour " << v << " (fanout " << fanout << ", degree " << degree << ")";
  }
}

TEST(NeighborSampler, NeighbourFrequencyIsFanoutOverDegreeSmallFanout) { expect_uniform_frequency(20, 5, 4000); }

TEST(NeighborSampler, NeighbourFrequencyIsFanoutOverDegreeLargeFanout) { expect_uniform_frequency(300, 100, 1500); }

// The chi-square statistic of `counts` against equal expected counts, with the bounds between which
// it falls with probability 1 - 2e-6 for a uniform draw (Wilson-Hilferty's approximation of the
// chi-square quantiles, z = 4.753).
struct ChiSquare {
  double statistic = 0, low = 0, high = 0;
};
ChiSquare chi_square_uniform(const std::map<std::vector<std::int64_t>, int>& counts, std::int64_t cells, int draws) {
  const double expected = static_cast<double>(draws) / static_cast<double>(cells);
  ChiSquare c;
  std::int64_t seen = 0;
  for (const auto& [cell, n] : counts) {
    c.statistic += (n - expected) * (n - expected) / expected;
    ++seen;
  }
  c.statistic += static_cast<double>(cells - seen) * expected;  // cells never drawn
  const double dof = static_cast<double>(cells - 1);
  const auto quantile = [&](double z) { return dof * std::pow(1 - 2 / (9 * dof) + z * std::sqrt(2 / (9 * dof)), 3); };
  c.low = quantile(-4.753);
  c.high = quantile(4.753);
  return c;
}

// Uniform without replacement: every set of `fanout` neighbours of a node of degree `degree` is
// drawn equally often. Tallies the sets drawn (or, where fanout > degree / 2, the sets left out,
// which name the same draw with fewer cells) and tests them against the uniform distribution.
void expect_uniform_subsets(std::int64_t degree, std::int32_t fanout, std::int64_t cells, int draws) {
  const auto g = star(degree);
  const NeighborSampler sampler(g, {fanout});
  const std::vector<std::int64_t> seeds = {0};
  std::map<std::vector<std::int64_t>, int> counts;
  for (int d = 0; d < draws; ++d) {
    const SampledBatch batch = sampler.sample(seeds, batch_seed(11, 1, d));
    std::vector<bool> taken(static_cast<std::size_t>(degree + 1), false);
    for (const std::int32_t s : batch.blocks[0].indices) taken[batch.input_nodes[s]] = true;
    std::vector<std::int64_t> cell;
    const bool tally_taken = 2 * fanout <= degree;
    for (std::int64_t v = 1; v <= degree; ++v)
      if (taken[v] == tally_taken) cell.push_back(v);
    ASSERT_EQ(static_cast<std::int64_t>(cell.size()), tally_taken ? fanout : degree - fanout);
    ++counts[cell];
  }
  EXPECT_EQ(static_cast<std::int64_t>(counts.size()), cells) << "some neighbour sets were never drawn";
  const ChiSquare c = chi_square_uniform(counts, cells, draws);
  EXPECT_GT(c.statistic, c.low) << "draws too even to be random (degree " << degree << ", fanout " << fanout << ")";
  EXPECT_LT(c.statistic, c.high) << "draws not uniform (degree " << degree << ", fanout " << fanout << ")";
}

// Floyd's draw: C(6, 3) = 20 sets of three.
TEST(NeighborSampler, EveryNeighbourSetIsEquallyLikelySmallFanout) { expect_uniform_subsets(6, 3, 20, 20000); }

// The partial Fisher-Yates draw (fanout > 64): the C(67, 2) = 2211 pairs left out of 65.
TEST(NeighborSampler, EveryNeighbourSetIsEquallyLikelyLargeFanout) { expect_uniform_subsets(67, 65, 2211, 44220); }

TEST(NeighborSampler, WideIndicesGiveTheSameSample) {
  const auto narrow = random_graph(1000, 8000, 6);
  ASSERT_FALSE(narrow.wide_ids());
  const auto idx32 = narrow.indices_array().span<std::int32_t>();
  std::vector<char> bytes(idx32.size() * 8);
  for (std::size_t e = 0; e < idx32.size(); ++e) {
    const std::int64_t v = idx32[e];
    std::memcpy(bytes.data() + 8 * e, &v, 8);
  }
  const auto ptr = narrow.indptr();
  std::vector<char> ptr_bytes(ptr.size() * 8);
  std::memcpy(ptr_bytes.data(), ptr.data(), ptr_bytes.size());
  const graph::Csr wide(
      format::NpyArray::from_bytes(format::DType::kInt64, {static_cast<std::int64_t>(ptr.size())},
                                   std::move(ptr_bytes)),
      format::NpyArray::from_bytes(format::DType::kInt64, {static_cast<std::int64_t>(idx32.size())}, std::move(bytes)),
      1000);
  ASSERT_TRUE(wide.wide_ids());
  const auto seeds = first_nodes(100, 3, 1000);
  const auto a = NeighborSampler(narrow, {5, 5}).sample(seeds, 3);
  const auto b = NeighborSampler(wide, {5, 5}).sample(seeds, 3);
  EXPECT_EQ(a.input_nodes, b.input_nodes);
  EXPECT_EQ(a.blocks[0].indices, b.blocks[0].indices);
}

TEST(NeighborSampler, RejectsBadFanoutsAndSeeds) {
  const auto g = random_graph(100, 300, 7);
  EXPECT_THROW(NeighborSampler(g, {}), Error);
  EXPECT_THROW(NeighborSampler(g, {5, 0}), Error);
  EXPECT_THROW(NeighborSampler(g, {-2}), Error);
  const NeighborSampler sampler(g, {3});
  const std::vector<std::int64_t> duplicate = {1, 2, 1};
  const std::vector<std::int64_t> out_of_range = {1, 100};
  try {
    sampler.sample(duplicate, 0);
    FAIL() << "duplicate seeds accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.argument(), "seeds");
    EXPECT_NE(std::string(e.what()).find("appears twice"), std::string::npos) << e.what();
  }
  EXPECT_THROW(sampler.sample(out_of_range, 0), Error);
}

TEST(NeighborSampler, ParsesFanouts) {
  EXPECT_EQ(parse_fanouts("15,10,5"), (std::vector<std::int32_t>{15, 10, 5}));
  EXPECT_EQ(parse_fanouts("-1"), (std::vector<std::int32_t>{-1}));
  EXPECT_THROW(parse_fanouts(""), Error);
  EXPECT_THROW(parse_fanouts("15,,5"), Error);
  EXPECT_THROW(parse_fanouts("15,x"), Error);
  EXPECT_THROW(parse_fanouts("0"), Error);
  EXPECT_THROW(parse_fanouts("10 "), Error);
  EXPECT_THROW(parse_fanouts("-2"), Error);
}

TEST(Fanouts, AreCheckedOnceNamingTheArgumentAndTheModelsLayers) {
  EXPECT_EQ(Fanouts({25, -1}, "--fanouts").values(), (std::vector<std::int32_t>{25, -1}));
  for (const auto& bad :
       {std::vector<std::int32_t>{}, std::vector<std::int32_t>{0}, std::vector<std::int32_t>{5, -3}}) {
    try {
      Fanouts(bad, "--eval-fanouts");
      ADD_FAILURE() << "accepted " << bad.size() << " fanouts";
    } catch (const Error& e) {
      EXPECT_EQ(e.argument(), "--eval-fanouts");
    }
  }
  // One per layer of the model; a single value stands for every layer only where asked.
  EXPECT_EQ(Fanouts({15, 10, 5}, "--fanouts", 3).num_layers(), 3);
  try {
    Fanouts({15, 10}, "--change-fanouts", 3);
    ADD_FAILURE() << "2 fanouts accepted for 3 layers";
  } catch (const Error& e) {
    EXPECT_EQ(e.argument(), "--change-fanouts");
    EXPECT_NE(std::string(e.what()).find("one fanout per layer"), std::string::npos) << e.what();
  }
  EXPECT_THROW(Fanouts({20}, "--fanouts", 3), Error);
  EXPECT_EQ(Fanouts({20}, "--eval-fanouts", 3, Fanouts::Layers::kOneForAll).values(),
            (std::vector<std::int32_t>{20, 20, 20}));
  EXPECT_EQ(Fanouts::all_neighbours(2).values(), (std::vector<std::int32_t>{-1, -1}));
  EXPECT_THROW(Fanouts::all_neighbours(0), Error);
}

TEST(IdMap, HandsOutIdsInInsertionOrderInBothRepresentations) {
  for (const std::int64_t num_ids : {std::int64_t{1000}, std::int64_t{1} << 26}) {
    IdMap map;
    map.begin(num_ids, 10);
    EXPECT_EQ(map.dense(), num_ids == 1000);
    EXPECT_EQ(map.insert(500).first, 0);
    EXPECT_EQ(map.insert(7), std::make_pair(std::int32_t{1}, true));
    EXPECT_EQ(map.insert(500), std::make_pair(std::int32_t{0}, false));
    EXPECT_EQ(map.find(7), 1);
    EXPECT_EQ(map.find(8), -1);
    EXPECT_EQ(map.size(), 2);
  }
}

TEST(IdMap, EachBatchStartsEmptyOnTheSameTable) {
  IdMap map;
  map.begin(1000, 10);
  map.insert(500);
  map.insert(7);
  map.begin(2000, 10);  // a larger id space: the table grows
  EXPECT_EQ(map.find(500), -1);
  EXPECT_EQ(map.insert(1999), std::make_pair(std::int32_t{0}, true));
  map.begin(1000, 10);  // a smaller one: the same table, nothing left from before
  EXPECT_EQ(map.find(1999), -1);
  EXPECT_EQ(map.find(7), -1);
  EXPECT_EQ(map.insert(7), std::make_pair(std::int32_t{0}, true));
  EXPECT_EQ(map.size(), 1);
}

}  // namespace
}  // namespace loom::sample
