#include "loom/embed/eval/logistic.hpp"

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "loom/core/error.hpp"
#include "loom/core/parallel.hpp"
#include "loom/core/rng.hpp"
#include "loom/embed/eval/lbfgs.hpp"

namespace loom::embed::eval {
namespace {

TEST(Lbfgs, MinimisesRosenbrock) {
  const Objective rosenbrock = [](std::span<const double> x, std::span<double> g) {
    const double a = 1 - x[0], b = x[1] - x[0] * x[0];
    g[0] = -2 * a - 400 * x[0] * b;
    g[1] = 200 * b;
    return a * a + 100 * b * b;
  };
  std::vector<double> x{-1.2, 1.0};
  const auto r = minimize_lbfgs(rosenbrock, x, {.memory = 10, .max_iterations = 500, .tolerance = 1e-10});
  EXPECT_TRUE(r.converged);
  EXPECT_NEAR(x[0], 1.0, 1e-6);
  EXPECT_NEAR(x[1], 1.0, 1e-6);
}

// Two Gaussian blobs in 5 dimensions, centred at +-2 along the first axis.
void blobs(std::int64_t n, std::uint64_t seed, FeatureMatrix& x, std::vector<std::uint8_t>& y) {
  core::Rng rng(seed);
  x = FeatureMatrix(n, 5);
  y.resize(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    y[i] = static_cast<std::uint8_t>(i % 2);
    for (std::int64_t j = 0; j < 5; ++j) x.row(i)[j] = 0.3 * rng.normal() + (j == 0 ? (y[i] ? 2.0 : -2.0) : 0.0);
  }
}

TEST(Logistic, SeparatesSeparableClassesOnUnseenData) {
  FeatureMatrix x, test_x;
  std::vector<std::uint8_t> y, test_y;
  blobs(200, 1, x, y);
  blobs(200, 2, test_x, test_y);
  const auto model = fit_logistic(x, y, {});
  EXPECT_TRUE(model.fit.converged);
  for (std::int64_t i = 0; i < test_x.rows; ++i) EXPECT_EQ(model.score(test_x.row(i)) > 0, test_y[i] == 1);
  EXPECT_GT(model.weights[0], 1.0);  // the separating axis dominates
  for (int j = 1; j < 5; ++j) EXPECT_LT(std::abs(model.weights[j]), 0.5 * model.weights[0]);
}

TEST(Logistic, SolutionIsStationaryForTheRegularisedObjective) {
  FeatureMatrix x;
  std::vector<std::uint8_t> y;
  blobs(100, 3, x, y);
  for (std::int64_t i = 0; i < 100; i += 7) y[i] ^= 1;  // make it non-separable
  const double c = 0.5;
  const auto model = fit_logistic(x, y, {.C = c});
  // gradient of 0.5|w|^2 + 0.5 b^2 + C sum log(1 + exp(-s z)) at the returned point.
  std::vector<double> grad(model.weights);
  double grad_b = model.bias;
  for (std::int64_t i = 0; i < x.rows; ++i) {
    const double s = y[i] ? 1.0 : -1.0;
    const double r = -c * s / (1.0 + std::exp(s * model.score(x.row(i))));
    for (int j = 0; j < 5; ++j) grad[j] += r * x.row(i)[j];
    grad_b += r;
  }
  for (double g : grad) EXPECT_NEAR(g, 0.0, 1e-3);
  EXPECT_NEAR(grad_b, 0.0, 1e-3);
}

TEST(Logistic, OneVsRestMatchesSeparateFitsAtAnyThreadCount) {
  FeatureMatrix x;
  std::vector<std::uint8_t> y;
  blobs(120, 4, x, y);
  std::vector<std::uint8_t> two(240);  // class 0 = y, class 1 = not y
  for (std::size_t i = 0; i < 120; ++i) {
    two[2 * i] = y[i];
    two[2 * i + 1] = static_cast<std::uint8_t>(1 - y[i]);
  }
  core::set_num_threads(1);
  const auto one_thread = fit_one_vs_rest(x, two, 2, {});
  core::set_num_threads(2);
  const auto two_threads = fit_one_vs_rest(x, two, 2, {});
  const auto single = fit_logistic(x, y, {});
  EXPECT_EQ(one_thread[0].weights, single.weights);
  EXPECT_EQ(one_thread[1].weights, two_threads[1].weights);
  EXPECT_NEAR(one_thread[1].weights[0], -single.weights[0], 1e-4);  // mirrored problem
  const auto scores = score_all(x, one_thread);
  EXPECT_EQ(scores.size(), 240u);
  EXPECT_THROW(fit_logistic(x, y, {.C = 0.0}), Error);
  EXPECT_THROW(fit_logistic(x, std::vector<std::uint8_t>(3), {}), Error);
}

}  // namespace
}  // namespace loom::embed::eval
