#include "loom/embed/eval/lbfgs.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace loom::embed::eval {

namespace {

double dot(std::span<const double> a, std::span<const double> b) {
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

// The last `stored` pairs (s, y) of steps and gradient changes, newest at head - 1, with rho = 1 / s.y.
struct History {
  std::vector<std::vector<double>> s, y;
  std::vector<double> rho, alpha;
  std::size_t stored = 0, head = 0;
  History(std::size_t m, std::size_t n)
      : s(m, std::vector<double>(n)), y(m, std::vector<double>(n)), rho(m), alpha(m) {}
};

// The two-loop recursion: d = -H g, H the inverse Hessian the history approximates.
void descent_direction(History& h, std::span<const double> g, std::vector<double>& d) {
  const std::size_t n = g.size(), m = h.s.size();
  for (std::size_t i = 0; i < n; ++i) d[i] = -g[i];
  for (std::size_t k = 0; k < h.stored; ++k) {
    const std::size_t j = (h.head + m - 1 - k) % m;
    h.alpha[j] = h.rho[j] * dot(h.s[j], d);
    for (std::size_t i = 0; i < n; ++i) d[i] -= h.alpha[j] * h.y[j][i];
  }
  if (h.stored > 0) {
    const std::size_t j = (h.head + m - 1) % m;
    const double gamma = dot(h.s[j], h.y[j]) / dot(h.y[j], h.y[j]);
    for (auto& v : d) v *= gamma;
  }
  for (std::size_t k = h.stored; k-- > 0;) {
    const std::size_t j = (h.head + m - 1 - k) % m;
    const double beta = h.rho[j] * dot(h.y[j], d);
    for (std::size_t i = 0; i < n; ++i) d[i] += (h.alpha[j] - beta) * h.s[j][i];
  }
}

}  // namespace

LbfgsResult minimize_lbfgs(const Objective& f, std::span<double> x, const LbfgsOptions& options) {
  const std::size_t n = x.size();
  const auto m = static_cast<std::size_t>(std::max(1, options.memory));
  std::vector<double> g(n), g_new(n), x_new(n), d(n);
  History h(m, n);

  LbfgsResult result;
  double fx = f(x, g);
  const double target = options.tolerance * std::max(1.0, std::sqrt(dot(g, g)));
  for (int it = 0; it < options.max_iterations; ++it) {
    const double gnorm = std::sqrt(dot(g, g));
    result.iterations = it;
    if (gnorm <= target) {
      result.converged = true;
      break;
    }
    descent_direction(h, g, d);
    double slope = dot(g, d);
    if (slope >= 0) {  // not a descent direction (numerical trouble): restart from steepest descent
      for (std::size_t i = 0; i < n; ++i) d[i] = -g[i];
      slope = -gnorm * gnorm;
      h.stored = 0;
    }
    // Backtracking Armijo line search; the first iteration starts from a unit-length step.
    double step = h.stored == 0 ? std::min(1.0, 1.0 / gnorm) : 1.0;
    double f_new = 0;
    bool accepted = false;
    for (int tries = 0; tries < 60; ++tries) {
      for (std::size_t i = 0; i < n; ++i) x_new[i] = x[i] + step * d[i];
      f_new = f(x_new, g_new);
      if (std::isfinite(f_new) && f_new <= fx + 1e-4 * step * slope) {
        accepted = true;
        break;
      }
      step *= 0.5;
    }
    if (!accepted) break;  // no decrease possible at machine precision: x is as good as it gets
    auto& sj = h.s[h.head];
    auto& yj = h.y[h.head];
    for (std::size_t i = 0; i < n; ++i) {
      sj[i] = x_new[i] - x[i];
      yj[i] = g_new[i] - g[i];
    }
    const double sy = dot(sj, yj);
    if (sy > 1e-16) {
      h.rho[h.head] = 1.0 / sy;
      h.head = (h.head + 1) % m;
      h.stored = std::min(h.stored + 1, m);
    }
    std::copy(x_new.begin(), x_new.end(), x.begin());
    std::swap(g, g_new);
    fx = f_new;
    result.iterations = it + 1;
  }
  result.value = fx;
  result.gradient_norm = std::sqrt(dot(g, g));
  if (result.gradient_norm <= target) result.converged = true;
  return result;
}

}  // namespace loom::embed::eval
