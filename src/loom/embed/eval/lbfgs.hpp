// Limited-memory BFGS for smooth unconstrained minimisation, used to fit the logistic regressions of
// the embedding evaluations. The objective writes its gradient and returns its value; a step is
// accepted by a backtracking Armijo line search, and a curvature pair is stored only when
// s.y > 0, so the two-loop direction stays a descent direction. Serial: callers parallelise over
// independent problems. Converged when |grad| <= tolerance * max(1, |grad at start|).
#pragma once

#include <cstdint>
#include <functional>
#include <span>

namespace loom::embed::eval {

struct LbfgsOptions {
  int memory = 10;
  int max_iterations = 1000;
  double tolerance = 1e-5;  // relative gradient norm
};

struct LbfgsResult {
  double value = 0;
  double gradient_norm = 0;
  int iterations = 0;
  bool converged = false;
};

// f(x, grad) -> value, writing the gradient at x into grad.
using Objective = std::function<double(std::span<const double> x, std::span<double> grad)>;

// Minimises f starting from (and overwriting) x.
LbfgsResult minimize_lbfgs(const Objective& f, std::span<double> x, const LbfgsOptions& options = {});

}  // namespace loom::embed::eval
