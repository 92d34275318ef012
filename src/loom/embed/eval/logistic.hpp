// L2-regularised logistic regression, as liblinear's primal solver fits it: minimise
//   0.5 |w|^2 + 0.5 b^2 + C * sum_i log(1 + exp(-y_i (w.x_i + b)))
// (the bias is a constant feature 1 and is regularised, so a class with no positive examples still
// gets finite weights), solved by L-BFGS to a relative gradient norm. fit_one_vs_rest fits one
// binary model per class in parallel; each fit is serial, so results do not depend on the thread
// count. Features are a dense row-major double matrix.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "loom/embed/eval/lbfgs.hpp"

namespace loom::embed::eval {

struct FeatureMatrix {
  std::int64_t rows = 0, cols = 0;
  std::vector<double> data;  // rows * cols

  FeatureMatrix() = default;
  FeatureMatrix(std::int64_t r, std::int64_t c) : rows(r), cols(c), data(static_cast<std::size_t>(r * c), 0.0) {}
  double* row(std::int64_t i) { return data.data() + i * cols; }
  const double* row(std::int64_t i) const { return data.data() + i * cols; }
};

struct LogisticOptions {
  double C = 1.0;  // inverse regularisation strength (> 0)
  LbfgsOptions lbfgs{};
};

struct LogisticModel {
  std::vector<double> weights;
  double bias = 0;
  LbfgsResult fit;                      // how the optimiser ended
  double score(const double* x) const;  // w.x + b (the log-odds of the positive class)
};

// y[i] is 1 (positive) or 0 for row i. Throws Error if sizes differ or C <= 0.
LogisticModel fit_logistic(const FeatureMatrix& x, std::span<const std::uint8_t> y, const LogisticOptions& options);

// y is a rows x num_classes 0/1 matrix (row-major); returns one model per class.
std::vector<LogisticModel> fit_one_vs_rest(const FeatureMatrix& x, std::span<const std::uint8_t> y,
                                           std::int64_t num_classes, const LogisticOptions& options);

// rows x models.size() matrix of scores.
std::vector<double> score_all(const FeatureMatrix& x, const std::vector<LogisticModel>& models);

}  // namespace loom::embed::eval
