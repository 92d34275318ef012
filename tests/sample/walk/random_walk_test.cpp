#include "loom/sample/walk/random_walk.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "loom/core/error.hpp"
#include "loom/core/parallel.hpp"
#include "loom/sample/walk/walk_kernel.hpp"

namespace loom::sample::walk {
namespace {

// Undirected graph from an edge list: sorted rows, both directions stored.
graph::Csr undirected(std::int64_t n, const std::vector<std::pair<int, int>>& edges) {
  std::vector<std::vector<std::int64_t>> adj(static_cast<std::size_t>(n));
  for (auto [u, v] : edges) {
    adj[u].push_back(v);
    adj[v].push_back(u);
  }
  std::vector<std::int64_t> indptr{0}, indices;
  for (auto& row : adj) {
    std::sort(row.begin(), row.end());
    indices.insert(indices.end(), row.begin(), row.end());
    indptr.push_back(static_cast<std::int64_t>(indices.size()));
  }
  return graph::Csr::from_vectors(std::move(indptr), indices, n);
}

// A small graph with triangles, a pendant path and varied degrees (0-based):
// 0-1 0-2 0-3 1-2 1-4 2-3 3-4 4-5 5-6 2-5
graph::Csr small_graph() {
  return undirected(7, {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 4}, {2, 3}, {3, 4}, {4, 5}, {5, 6}, {2, 5}});
}

bool adjacent(const graph::Csr& csr, std::int64_t a, std::int64_t b) {
  return csr.visit([&](auto g) {
    const auto row = g.neighbors(a);
    return std::find(row.begin(), row.end(), b) != row.end();
  });
}

TEST(RandomWalk, EveryStepFollowsAnEdgeAndWalksHaveFullLength) {
  const auto csr = small_graph();
  WalkOptions opt;
  opt.walks_per_node = 3;
  opt.length = 20;
  opt.p = 0.5;
  opt.q = 2.0;
  const auto walks = generate_walks(csr, opt);
  ASSERT_EQ(walks.num_walks, 21);
  EXPECT_EQ(walks.steps, 21 * 19);
  std::vector<int> starts(7, 0);
  for (std::int64_t w = 0; w < walks.num_walks; ++w) {
    const auto* row = walks.nodes.data() + w * walks.length;
    ++starts[row[0]];
    for (std::int64_t i = 1; i < walks.length; ++i) EXPECT_TRUE(adjacent(csr, row[i - 1], row[i]));
  }
  for (int c : starts) EXPECT_EQ(c, 3);  // each round starts once from every node
}

TEST(RandomWalk, UniformTransitionFrequenciesMatchOneOverDegree) {
  const auto csr = small_graph();
  WalkOptions opt;
  opt.walks_per_node = 400;
  opt.length = 50;
  const auto walks = generate_walks(csr, opt);
  std::map<std::pair<int, int>, double> count;
  std::vector<double> from(7, 0);
  for (std::int64_t w = 0; w < walks.num_walks; ++w) {
    const auto* row = walks.nodes.data() + w * walks.length;
    for (std::int64_t i = 1; i < walks.length; ++i) {
      count[{row[i - 1], row[i]}] += 1;
      from[row[i - 1]] += 1;
    }
  }
  double max_err = 0;
  for (const auto& [edge, c] : count) {
    const double expected = 1.0 / static_cast<double>(csr.degree(edge.first));
    max_err = std::max(max_err, std::abs(c / from[edge.first] - expected));
  }
  EXPECT_LT(max_err, 0.01);
  EXPECT_EQ(count.size(), 20u);  // every directed edge was taken
}

// Exact node2vec transition probabilities from (t, v) compared with the walks' frequencies by a
// pooled chi-square statistic and the largest absolute error.
void check_node2vec_frequencies(double p, double q) {
  const auto csr = small_graph();
  WalkOptions opt;
  opt.walks_per_node = 600;
  opt.length = 40;
  opt.p = p;
  opt.q = q;
  const auto walks = generate_walks(csr, opt);
  std::map<std::pair<int, int>, std::map<int, double>> count;
  for (std::int64_t w = 0; w < walks.num_walks; ++w) {
    const auto* row = walks.nodes.data() + w * walks.length;
    for (std::int64_t i = 2; i < walks.length; ++i) count[{row[i - 2], row[i - 1]}][row[i]] += 1;
  }
  double chi2 = 0, max_err = 0;
  std::int64_t dof = 0;
  for (const auto& [tv, next] : count) {
    const auto t = tv.first, v = tv.second;  // not a structured binding: the lambda below captures them
    std::vector<std::pair<int, double>> weights;
    double total_w = 0, total_n = 0;
    csr.visit([&](auto g) {
      for (auto x : g.neighbors(v)) {
        const double w = x == t ? 1.0 / p : adjacent(csr, t, x) ? 1.0 : 1.0 / q;
        weights.emplace_back(static_cast<int>(x), w);
        total_w += w;
      }
    });
    for (const auto& [x, c] : next) total_n += c;
    for (const auto& [x, w] : weights) {
      const double expected = total_n * w / total_w;
      const auto it = next.find(x);
      const double observed = it == next.end() ? 0.0 : it->second;
      chi2 += (observed - expected) * (observed - expected) / expected;
      max_err = std::max(max_err, std::abs(observed - expected) / total_n);
    }
    dof += static_cast<std::int64_t>(weights.size()) - 1;
  }
  // chi-square with `dof` degrees of freedom: mean dof, sd sqrt(2 dof); 5 sd is far out.
  EXPECT_LT(chi2, static_cast<double>(dof) + 5.0 * std::sqrt(2.0 * static_cast<double>(dof)))
      << "p=" << p << " q=" << q;
  EXPECT_LT(max_err, 0.02) << "p=" << p << " q=" << q;
}

TEST(RandomWalk, Node2vecTransitionsMatchExactWeightsWithLowP) { check_node2vec_frequencies(0.25, 4.0); }
TEST(RandomWalk, Node2vecTransitionsMatchExactWeightsWithLowQ) { check_node2vec_frequencies(4.0, 0.25); }
TEST(RandomWalk, Node2vecTransitionsMatchExactWeightsWithReturnBelowInOut) { check_node2vec_frequencies(0.4, 0.2); }
// Weights that leave little under the envelope: steps that reject kMaxRejections proposals draw
// from the row's exact weights, and the frequencies still match them.
TEST(RandomWalk, Node2vecTransitionsMatchExactWeightsWithHugeP) { check_node2vec_frequencies(1000.0, 1.0); }
TEST(RandomWalk, Node2vecTransitionsMatchExactWeightsWithHugeQ) { check_node2vec_frequencies(1.0, 1000.0); }

// A leaf reached from its one neighbour must go back, however unlikely a return is (p = 2^40):
// the walk ends at once rather than after ~2^40 rejected proposals.
TEST(RandomWalk, Node2vecLeavesALeafWithAHugeP) {
  const auto csr = graph::Csr::from_vectors({0, 1, 3, 4}, {1, 0, 2, 1}, 3);  // the path 0 - 1 - 2
  WalkOptions opt;
  opt.walks_per_node = 20;
  opt.length = 50;
  opt.p = 1099511627776.0;
  const auto walks = generate_walks(csr, opt);
  EXPECT_EQ(walks.steps, walks.num_walks * (opt.length - 1));
  for (std::int64_t w = 0; w < walks.num_walks; ++w)
    for (std::int64_t i = 1; i < walks.length; ++i)
      EXPECT_TRUE(adjacent(csr, walks.nodes[w * walks.length + i - 1], walks.nodes[w * walks.length + i]));
}

// Exact check of the node2vec step itself: a generator that replays chosen draws (uniform() on a
// grid of kGrid points, below(n) any value) lets every path of one rejection round be enumerated
// with its probability; the step's distribution is the accepted mass of each node, renormalised
// (later rounds repeat the first). On 3-regular graphs and with p, q of the form 2^k every
// threshold the sampler compares against lies on the grid, so the enumeration is exact and must
// equal the paper's definition w(x) / sum w: 1/p for x = t, 1 for x adjacent to t, 1/q otherwise.
class ReplayRng {
 public:
  static constexpr std::uint64_t kGrid = 64;
  struct NeedDraw {
    std::uint64_t range;
  };                    // the step asks for one more draw than replayed
  struct NextRound {};  // ... beyond the first round: a rejection

  ReplayRng(const std::vector<std::uint64_t>& draws, std::size_t round_draws) : draws_(draws), round_(round_draws) {}
  double uniform() { return static_cast<double>(take(kGrid)) / static_cast<double>(kGrid); }
  std::uint64_t below(std::uint64_t n) { return take(n); }

 private:
  std::uint64_t take(std::uint64_t range) {
    if (next_ == round_) throw NextRound{};
    if (next_ == draws_.size()) throw NeedDraw{range};
    return draws_[next_++];
  }
  const std::vector<std::uint64_t>& draws_;
  std::size_t round_, next_ = 0;
};

// Probability of each next node after t -> v, by enumerating every path of one round.
std::map<std::int64_t, double> enumerate_node2vec_step(const graph::Csr& csr, std::int64_t t, std::int64_t v, double p,
                                                       double q) {
  const auto bias = detail::Bias::make(p, q);
  std::map<std::int64_t, double> mass;
  std::vector<std::uint64_t> draws;
  // Depth-first over draw sequences, each path weighted by the product of 1 / range.
  std::function<void(double)> explore = [&](double weight) {
    try {
      ReplayRng rng(draws, /*round_draws=*/3);
      const std::int64_t x = csr.visit([&](auto g) { return detail::node2vec_step(g, t, v, bias, rng); });
      mass[x] += weight;
    } catch (const ReplayRng::NeedDraw& need) {
      for (std::uint64_t value = 0; value < need.range; ++value) {
        draws.push_back(value);
        explore(weight / static_cast<double>(need.range));
        draws.pop_back();
      }
    } catch (const ReplayRng::NextRound&) {
      // rejected in this round
    }
  };
  explore(1.0);
  double total = 0;
  for (const auto& [x, m] : mass) total += m;
  for (auto& [x, m] : mass) m /= total;
  return mass;
}

void expect_exact_node2vec_steps(const graph::Csr& csr, double p, double q) {
  std::int64_t checked = 0;
  for (std::int64_t t = 0; t < csr.num_rows(); ++t) {
    csr.visit([&](auto g) {
      for (const auto v : g.neighbors(t)) {
        const auto got = enumerate_node2vec_step(csr, t, v, p, q);
        double total = 0;
        for (const auto x : g.neighbors(v)) total += x == t ? 1 / p : adjacent(csr, t, x) ? 1.0 : 1 / q;
        for (const auto x : g.neighbors(v)) {
          const double w = x == t ? 1 / p : adjacent(csr, t, x) ? 1.0 : 1 / q;
          const auto it = got.find(x);
          EXPECT_NEAR(it == got.end() ? 0.0 : it->second, w / total, 1e-12)
              << "p=" << p << " q=" << q << " step " << t << " -> " << v << " -> " << x;
        }
        EXPECT_EQ(got.size(), g.neighbors(v).size()) << "only neighbours of " << v;
        ++checked;
      }
    });
  }
  EXPECT_EQ(checked, csr.num_edges());
}

TEST(RandomWalk, Node2vecStepProbabilitiesEqualTheDefinitionExactly) {
  // The triangular prism (triangles 0-1-2 and 3-4-5, matched 0-3 1-4 2-5): from t to v inside a
  // triangle, v's neighbours are t, one neighbour of t and one that is not. The 3-cube has no
  // triangle: only returns and moves away.
  const auto prism = undirected(6, {{0, 1}, {1, 2}, {0, 2}, {3, 4}, {4, 5}, {3, 5}, {0, 3}, {1, 4}, {2, 5}});
  const auto cube =
      undirected(8, {{0, 1}, {1, 3}, {3, 2}, {2, 0}, {4, 5}, {5, 7}, {7, 6}, {6, 4}, {0, 4}, {1, 5}, {2, 6}, {3, 7}});
  for (const auto& [p, q] : std::vector<std::pair<double, double>>{
           {0.25, 0.25}, {4, 1}, {1, 1}, {4, 0.25}, {0.25, 4}, {0.25, 0.5}, {2, 0.5}, {0.5, 2}}) {
    expect_exact_node2vec_steps(prism, p, q);
    expect_exact_node2vec_steps(cube, p, q);
  }
}

TEST(RandomWalk, SameWalksAtOneAndTwoThreads) {
  const auto csr = small_graph();
  WalkOptions opt;
  opt.walks_per_node = 50;
  opt.length = 30;
  opt.p = 0.3;
  opt.q = 3.0;
  opt.seed = 42;
  const int before = core::num_threads();
  core::set_num_threads(1);
  const auto one = generate_walks(csr, opt);
  core::set_num_threads(2);
  const auto two = generate_walks(csr, opt);
  core::set_num_threads(before);
  EXPECT_EQ(one.nodes, two.nodes);
  opt.seed = 43;
  EXPECT_NE(generate_walks(csr, opt).nodes, one.nodes);
}

TEST(RandomWalk, WalkContentDependsOnlyOnSeedRoundAndStart) {
  const auto csr = small_graph();
  WalkOptions opt;
  opt.walks_per_node = 2;
  opt.length = 15;
  opt.q = 0.5;
  opt.shuffle = false;
  const auto all = generate_walks(csr, opt);
  const auto subset = generate_walks(csr, opt, {5, 2});
  ASSERT_EQ(subset.num_walks, 4);
  // Unshuffled, walk w of the subset is start {5, 2}[w % 2] in round w / 2.
  for (std::int64_t w = 0; w < 4; ++w) {
    const std::int64_t start = w % 2 == 0 ? 5 : 2;
    const std::int64_t full_w = (w / 2) * 7 + start;
    EXPECT_TRUE(std::equal(subset.nodes.begin() + w * 15, subset.nodes.begin() + (w + 1) * 15,
                           all.nodes.begin() + full_w * 15));
  }
  // Generating a range in chunks gives the same rows as one call.
  const WalkGenerator gen(csr, opt);
  std::vector<std::int32_t> chunked(static_cast<std::size_t>(gen.num_walks() * 15));
  gen.generate(0, 5, std::span(chunked).subspan(0, 5 * 15));
  gen.generate(5, gen.num_walks() - 5, std::span(chunked).subspan(5 * 15));
  EXPECT_EQ(chunked, all.nodes);
}

TEST(RandomWalk, WalkStopsAtNodeWithoutNeighbours) {
  // Node 2 is isolated; directed edge 0 -> 1 leads into the sink 1.
  const auto csr = graph::Csr::from_vectors({0, 1, 1, 1}, {1}, 3);
  WalkOptions opt;
  opt.walks_per_node = 1;
  opt.length = 4;
  opt.shuffle = false;
  const auto walks = generate_walks(csr, opt);
  const std::vector<std::int32_t> expected{0,       1,       kNoNode, kNoNode, 1,       kNoNode,
                                           kNoNode, kNoNode, 2,       kNoNode, kNoNode, kNoNode};
  EXPECT_EQ(walks.nodes, expected);
  EXPECT_EQ(walks.steps, 1);
}

TEST(RandomWalk, CompactWalksDropsPaddingAndReturnsOffsets) {
  const auto csr = graph::Csr::from_vectors({0, 1, 1, 1}, {1}, 3);
  WalkOptions opt;
  opt.walks_per_node = 1;
  opt.length = 4;
  opt.shuffle = false;
  auto walks = generate_walks(csr, opt);
  const auto offsets = compact_walks(walks);
  EXPECT_EQ(walks.nodes, (std::vector<std::int32_t>{0, 1, 1, 2}));
  EXPECT_EQ(offsets, (std::vector<std::int64_t>{0, 2, 3, 4}));
}

TEST(RandomWalk, BadOptionsAreArgumentErrors) {
  const auto csr = small_graph();
  auto expect_arg = [&](WalkOptions opt, const std::string& name) {
    try {
      generate_walks(csr, opt);
      FAIL() << "expected an error for " << name;
    } catch (const Error& e) {
      EXPECT_EQ(e.argument(), name) << e.what();
    }
  };
  WalkOptions opt;
  opt.length = 0;
  expect_arg(opt, "--length");
  opt = {};
  opt.p = 0;
  expect_arg(opt, "--p");
  opt = {};
  opt.q = -1;
  expect_arg(opt, "--q");
  opt = {};
  opt.walks_per_node = 0;
  expect_arg(opt, "--walks");
  EXPECT_THROW(generate_walks(csr, WalkOptions{}, {7}), Error);
}

TEST(RandomWalk, Node2vecRejectsUnsortedRows) {
  const auto csr = graph::Csr::from_vectors({0, 2, 3, 4}, {2, 1, 0, 0}, 3);
  WalkOptions opt;
  opt.p = 2;
  EXPECT_THROW(generate_walks(csr, opt), Error);
  opt.p = 1;
  EXPECT_NO_THROW(generate_walks(csr, opt));  // the uniform walk does not need sorted rows
}

}  // namespace
}  // namespace loom::sample::walk
