#include "loom/graph/generate/knn_graph.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "loom/core/error.hpp"
#include "loom/core/parallel.hpp"
#include "loom/core/rng.hpp"

namespace loom::graph::generate {
namespace {

std::vector<float> random_features(std::int64_t n, std::int64_t dim, std::uint64_t seed) {
  core::Rng rng(seed);
  std::vector<float> x(n * dim);
  for (auto& v : x) v = static_cast<float>(rng.normal());
  return x;
}

// Brute force in double precision: the k best (similarity desc, id asc) other rows.
std::vector<std::vector<std::int64_t>> brute_force(const std::vector<float>& x, std::int64_t n, std::int64_t dim, int k,
                                                   std::vector<std::vector<double>>& sims_out) {
  std::vector<double> norm(n);
  for (std::int64_t i = 0; i < n; ++i) {
    double s = 0;
    for (std::int64_t d = 0; d < dim; ++d) s += double(x[i * dim + d]) * x[i * dim + d];
    norm[i] = std::sqrt(s);
  }
  std::vector<std::vector<std::int64_t>> out(n);
  sims_out.assign(n, {});
  for (std::int64_t i = 0; i < n; ++i) {
    std::vector<std::pair<double, std::int64_t>> all;
    for (std::int64_t j = 0; j < n; ++j) {
      if (j == i) continue;
      double s = 0;
      for (std::int64_t d = 0; d < dim; ++d) s += double(x[i * dim + d]) * x[j * dim + d];
      all.push_back({-s / (norm[i] * norm[j]), j});
    }
    std::sort(all.begin(), all.end());
    for (int r = 0; r <= k; ++r) sims_out[i].push_back(-all[r].first);
    for (int r = 0; r < k; ++r) out[i].push_back(all[r].second);
  }
  return out;
}

void expect_matches_brute_force(std::int64_t n, std::int64_t dim, int k, const KnnOptions& options) {
  const auto x = random_features(n, dim, 17 + n);
  std::vector<std::vector<double>> sims;
  const auto expected = brute_force(x, n, dim, k, sims);
  const KnnResult knn = knn_graph(x, n, dim, k, options);
  ASSERT_EQ(knn.num_nodes, n);
  ASSERT_EQ(knn.k, k);
  int compared = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    for (int r = 0; r < k; ++r)
      EXPECT_NEAR(knn.similarity[i * k + r], sims[i][r], 1e-5) << "row " << i << " rank " << r;
    // The exact set is only well defined where the k-th and (k+1)-th similarity differ.
    if (sims[i][k - 1] - sims[i][k] < 1e-5) continue;
    std::vector<std::int64_t> got(knn.neighbors.begin() + i * k, knn.neighbors.begin() + (i + 1) * k);
    std::vector<std::int64_t> want = expected[i];
    std::sort(got.begin(), got.end());
    std::sort(want.begin(), want.end());
    EXPECT_EQ(got, want) << "row " << i;
    ++compared;
  }
  EXPECT_GT(compared, n * 9 / 10);
}

TEST(KnnGraph, MatchesBruteForceInOneBlock) { expect_matches_brute_force(300, 24, 5, KnnOptions{}); }

TEST(KnnGraph, MatchesBruteForceAcrossManySmallBlocks) {
  expect_matches_brute_force(500, 16, 7, KnnOptions{.tile = 33});
}

TEST(KnnGraph, NeighboursSortedBySimilarityAndExcludeSelf) {
  const std::int64_t n = 200, dim = 8;
  const int k = 6;
  const auto x = random_features(n, dim, 3);
  const KnnResult knn = knn_graph(x, n, dim, k);
  for (std::int64_t i = 0; i < n; ++i)
    for (int r = 0; r < k; ++r) {
      EXPECT_NE(knn.neighbors[i * k + r], i);
      if (r > 0) {
        EXPECT_GE(knn.similarity[i * k + r - 1], knn.similarity[i * k + r]);
      }
    }
}

TEST(KnnGraph, DuplicateRowsAreMutualNearestNeighboursAndTiesGoToSmallerId) {
  // Rows 0, 1 and 2 are identical; every other row is random.
  const std::int64_t n = 50, dim = 6;
  auto x = random_features(n, dim, 5);
  for (std::int64_t d = 0; d < dim; ++d) {
    x[1 * dim + d] = x[d];
    x[2 * dim + d] = x[d];
  }
  const KnnResult knn = knn_graph(x, n, dim, 2);
  EXPECT_EQ(knn.neighbors[2 * 2 + 0], 0);  // row 2 ties with rows 0 and 1
  EXPECT_EQ(knn.neighbors[2 * 2 + 1], 1);
  EXPECT_EQ(knn.neighbors[0 * 2 + 0], 1);  // row 0 ties with rows 1 and 2: the smaller id first
  EXPECT_EQ(knn.neighbors[0 * 2 + 1], 2);
  EXPECT_NEAR(knn.similarity[0], 1.0f, 1e-6);
}

TEST(KnnGraph, SameResultAtAnyThreadCount) {
  const std::int64_t n = 400, dim = 12;
  const auto x = random_features(n, dim, 11);
  core::set_num_threads(1);
  const KnnResult one = knn_graph(x, n, dim, 4, KnnOptions{.tile = 50});
  core::set_num_threads(2);
  const KnnResult two = knn_graph(x, n, dim, 4, KnnOptions{.tile = 50});
  EXPECT_EQ(one.neighbors, two.neighbors);
  EXPECT_EQ(one.similarity, two.similarity);
}

TEST(KnnGraph, RejectsBadK) {
  const auto x = random_features(10, 3, 1);
  EXPECT_THROW(knn_graph(x, 10, 3, 0), Error);
  try {
    knn_graph(x, 10, 3, 10);
    FAIL() << "k = n accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--k"), std::string::npos) << e.what();
  }
}

TEST(KnnGraph, RejectsNonFiniteFeatures) {
  auto x = random_features(10, 3, 1);
  x[7] = std::nanf("");
  EXPECT_THROW(knn_graph(x, 10, 3, 2), Error);
}

TEST(KnnGraph, EdgeListHasOneEdgePerNeighbour) {
  const auto x = random_features(20, 4, 2);
  const KnnResult knn = knn_graph(x, 20, 4, 3);
  const EdgeList edges = knn_edge_list(knn);
  ASSERT_EQ(edges.src.size(), 60u);
  EXPECT_EQ(edges.num_nodes, 20);
  for (std::size_t e = 0; e < edges.src.size(); ++e) {
    EXPECT_EQ(edges.src[e], static_cast<std::int64_t>(e / 3));
    EXPECT_EQ(edges.dst[e], knn.neighbors[e]);
  }
}

}  // namespace
}  // namespace loom::graph::generate
