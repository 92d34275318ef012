#include "loom/embed/eval/logistic.hpp"

#include <cmath>

#include "loom/core/error.hpp"
#include "loom/core/parallel.hpp"

namespace loom::embed::eval {

namespace {

// log(1 + exp(t)) without overflow.
double softplus(double t) { return t > 0 ? t + std::log1p(std::exp(-t)) : std::log1p(std::exp(t)); }
double sigmoid(double t) {
  if (t >= 0) return 1.0 / (1.0 + std::exp(-t));
  const double e = std::exp(t);
  return e / (1.0 + e);
}

// Fits one binary problem; labels are read as y[i * stride + offset].
LogisticModel fit_strided(const FeatureMatrix& x, const std::uint8_t* y, std::int64_t stride,
                          const LogisticOptions& options) {
  const std::int64_t n = x.rows, d = x.cols;
  const double c = options.C;
  std::vector<double> margin(static_cast<std::size_t>(n));
  const Objective objective = [&](std::span<const double> w, std::span<double> grad) {
    const double b = w[static_cast<std::size_t>(d)];
    double value = 0;
    for (std::int64_t j = 0; j <= d; ++j) {
      grad[j] = w[j];
      value += 0.5 * w[j] * w[j];
    }
    double grad_b = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      const double* xi = x.row(i);
      double z = b;
      for (std::int64_t j = 0; j < d; ++j) z += w[j] * xi[j];
      const double sign = y[i * stride] ? 1.0 : -1.0;
      value += c * softplus(-sign * z);
      margin[i] = -c * sign * sigmoid(-sign * z);  // d loss / d z
      grad_b += margin[i];
    }
    for (std::int64_t i = 0; i < n; ++i) {
      const double* xi = x.row(i);
      const double r = margin[i];
      for (std::int64_t j = 0; j < d; ++j) grad[j] += r * xi[j];
    }
    grad[d] += grad_b;
    return value;
  };
  std::vector<double> w(static_cast<std::size_t>(d + 1), 0.0);
  LogisticModel model;
  model.fit = minimize_lbfgs(objective, w, options.lbfgs);
  model.bias = w.back();
  w.pop_back();
  model.weights = std::move(w);
  return model;
}

}  // namespace

double LogisticModel::score(const double* x) const {
  double z = bias;
  for (std::size_t j = 0; j < weights.size(); ++j) z += weights[j] * x[j];
  return z;
}

LogisticModel fit_logistic(const FeatureMatrix& x, std::span<const std::uint8_t> y, const LogisticOptions& options) {
  LOOM_CHECK_ARG(options.C > 0 && std::isfinite(options.C), "--C", "regularisation C must be > 0, got {}", options.C);
  LOOM_CHECK(static_cast<std::int64_t>(y.size()) == x.rows, "logistic regression: {} labels for {} rows", y.size(),
             x.rows);
  return fit_strided(x, y.data(), 1, options);
}

std::vector<LogisticModel> fit_one_vs_rest(const FeatureMatrix& x, std::span<const std::uint8_t> y,
                                           std::int64_t num_classes, const LogisticOptions& options) {
  LOOM_CHECK_ARG(options.C > 0 && std::isfinite(options.C), "--C", "regularisation C must be > 0, got {}", options.C);
  LOOM_CHECK(static_cast<std::int64_t>(y.size()) == x.rows * num_classes,
             "one-vs-rest: label matrix has {} entries, expected {} rows x {} classes", y.size(), x.rows, num_classes);
  std::vector<LogisticModel> models(static_cast<std::size_t>(num_classes));
  core::parallel_for(
      num_classes, [&](std::int64_t k) { models[k] = fit_strided(x, y.data() + k, num_classes, options); },
      /*grain=*/1);
  return models;
}

std::vector<double> score_all(const FeatureMatrix& x, const std::vector<LogisticModel>& models) {
  const auto k = static_cast<std::int64_t>(models.size());
  std::vector<double> scores(static_cast<std::size_t>(x.rows * k));
  core::parallel_for(x.rows, [&](std::int64_t i) {
    for (std::int64_t c = 0; c < k; ++c) scores[i * k + c] = models[c].score(x.row(i));
  });
  return scores;
}

}  // namespace loom::embed::eval
