#include "loom/embed/eval/node_classification.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "loom/core/error.hpp"
#include "loom/core/rng.hpp"

namespace loom::embed::eval {

namespace {

FeatureMatrix gather_rows(const NodeVectors& vectors, std::span<const std::int64_t> nodes) {
  FeatureMatrix x(static_cast<std::int64_t>(nodes.size()), vectors.dim);
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const float* src = vectors.data.data() + nodes[i] * vectors.dim;
    std::copy(src, src + vectors.dim, x.row(static_cast<std::int64_t>(i)));
  }
  return x;
}

std::vector<std::uint8_t> gather_labels(const NodeLabels& labels, std::span<const std::int64_t> nodes) {
  const auto k = labels.num_classes;
  std::vector<std::uint8_t> y(nodes.size() * static_cast<std::size_t>(k));
  for (std::size_t i = 0; i < nodes.size(); ++i)
    std::copy_n(labels.matrix.begin() + nodes[i] * k, k, y.begin() + static_cast<std::ptrdiff_t>(i) * k);
  return y;
}

F1Scores mean_of(const std::vector<F1Scores>& runs) {
  F1Scores m;
  for (const auto& r : runs) {
    m.micro += r.micro / static_cast<double>(runs.size());
    m.macro += r.macro / static_cast<double>(runs.size());
  }
  return m;
}

F1Scores stddev_of(const std::vector<F1Scores>& runs, const F1Scores& mean) {
  F1Scores s;
  if (runs.size() < 2) return s;
  for (const auto& r : runs) {
    s.micro += (r.micro - mean.micro) * (r.micro - mean.micro);
    s.macro += (r.macro - mean.macro) * (r.macro - mean.macro);
  }
  s.micro = std::sqrt(s.micro / static_cast<double>(runs.size() - 1));
  s.macro = std::sqrt(s.macro / static_cast<double>(runs.size() - 1));
  return s;
}

}  // namespace

NodeLabels labels_from_store(const graph::GraphStore& store) {
  if (!store.has_label()) throw Error::in_file(store.dir(), 0, "the store has no labels (label.npy)");
  NodeLabels labels;
  labels.num_nodes = store.num_nodes();
  labels.num_classes = store.meta().num_classes;
  labels.multi_label = store.meta().multi_label;
  const auto k = labels.num_classes;
  if (labels.multi_label) {
    const auto m = store.label().span<std::uint8_t>();
    labels.matrix.assign(m.begin(), m.end());
  } else {
    const auto ids = store.label().span<std::int64_t>();
    labels.matrix.assign(static_cast<std::size_t>(labels.num_nodes * k), 0);
    for (std::int64_t v = 0; v < labels.num_nodes; ++v) {
      if (ids[v] >= k)
        throw Error::in_file(store.dir() + "/label.npy", 0,
                             fmt::format("label {} of node {} is not below {} classes", ids[v], v, k));
      if (ids[v] >= 0) labels.matrix[static_cast<std::size_t>(v * k + ids[v])] = 1;
    }
  }
  LOOM_CHECK(static_cast<std::int64_t>(labels.matrix.size()) == labels.num_nodes * k,
             "{}: label.npy has {} values, expected {} nodes x {} classes", store.dir(), labels.matrix.size(),
             labels.num_nodes, k);
  return labels;
}

NodeClassResult evaluate_node_classification(const NodeVectors& vectors, const NodeLabels& labels,
                                             const NodeClassOptions& options) {
  LOOM_CHECK_ARG(options.repeats >= 1, "--repeats", "repeats must be at least 1, got {}", options.repeats);
  LOOM_CHECK_ARG(!options.train_ratios.empty(), "--ratios", "no train ratio given");
  for (const double r : options.train_ratios)
    LOOM_CHECK_ARG(r > 0 && r < 1, "--ratios", "train ratio {} is not in (0, 1)", r);
  LOOM_CHECK(vectors.num_nodes == labels.num_nodes, "embedding covers {} nodes but the labels {}", vectors.num_nodes,
             labels.num_nodes);
  LOOM_CHECK(vectors.dim > 0 && static_cast<std::int64_t>(vectors.data.size()) == vectors.num_nodes * vectors.dim,
             "embedding matrix has {} values for {} nodes x {} dims", vectors.data.size(), vectors.num_nodes,
             vectors.dim);

  NodeClassResult result;
  result.multi_label = labels.multi_label;
  std::vector<std::int64_t> nodes;
  const auto k = labels.num_classes;
  for (std::int64_t v = 0; v < labels.num_nodes; ++v) {
    const auto* row = labels.matrix.data() + v * k;
    if (std::none_of(row, row + k, [](std::uint8_t b) { return b != 0; })) {
      ++result.unlabeled_nodes;
    } else if (!vectors.present[static_cast<std::size_t>(v)]) {
      ++result.missing_vectors;
    } else {
      nodes.push_back(v);
    }
  }
  const auto n = static_cast<std::int64_t>(nodes.size());
  result.evaluated_nodes = n;
  LOOM_CHECK(n >= 2, "node classification needs at least 2 labelled nodes with vectors, found {}", n);

  const core::Rng root(options.seed);
  for (const double ratio : options.train_ratios) {
    RatioScores scores;
    scores.ratio = ratio;
    scores.train_nodes = std::clamp<std::int64_t>(std::llround(ratio * static_cast<double>(n)), 1, n - 1);
    scores.test_nodes = n - scores.train_nodes;
    for (int rep = 0; rep < options.repeats; ++rep) {
      auto order = nodes;
      auto rng = root.split(static_cast<std::uint64_t>(rep));
      core::shuffle(order.begin(), order.end(), rng);
      const std::span<const std::int64_t> train(order.data(), static_cast<std::size_t>(scores.train_nodes));
      const std::span<const std::int64_t> test(order.data() + scores.train_nodes,
                                               static_cast<std::size_t>(scores.test_nodes));
      const auto models =
          fit_one_vs_rest(gather_rows(vectors, train), gather_labels(labels, train), k, options.logistic);
      const auto truth = gather_labels(labels, test);
      const auto predicted = predict_top_k(score_all(gather_rows(vectors, test), models), truth, k);
      scores.runs.push_back(f1_scores(truth, predicted, k));
    }
    scores.mean = mean_of(scores.runs);
    scores.stddev = stddev_of(scores.runs, scores.mean);
    result.ratios.push_back(std::move(scores));
  }
  return result;
}

nlohmann::json NodeClassResult::to_json() const {
  nlohmann::json j;
  j["evaluated_nodes"] = evaluated_nodes;
  j["unlabeled_nodes"] = unlabeled_nodes;
  j["missing_vectors"] = missing_vectors;
  j["multi_label"] = multi_label;
  j["ratios"] = nlohmann::json::array();
  for (const auto& r : ratios) {
    nlohmann::json runs = nlohmann::json::array();
    for (const auto& f : r.runs) runs.push_back({{"micro_f1", f.micro}, {"macro_f1", f.macro}});
    j["ratios"].push_back({{"train_ratio", r.ratio},
                           {"train_nodes", r.train_nodes},
                           {"test_nodes", r.test_nodes},
                           {"micro_f1", r.mean.micro},
                           {"macro_f1", r.mean.macro},
                           {"micro_f1_std", r.stddev.micro},
                           {"macro_f1_std", r.stddev.macro},
                           {"runs", runs}});
  }
  return j;
}

std::string NodeClassResult::to_table() const {
  std::string out =
      fmt::format("nodes evaluated {} (unlabeled {}, without a vector {}), {}\n", evaluated_nodes, unlabeled_nodes,
                  missing_vectors, multi_label ? "multi-label, top-k prediction" : "single-label");
  out += fmt::format("{:>11} {:>7} {:>7} {:>17} {:>17}\n", "train_ratio", "train", "test", "micro_f1", "macro_f1");
  for (const auto& r : ratios)
    out += fmt::format("{:>11.2f} {:>7} {:>7} {:>8.4f} ± {:<6.4f} {:>8.4f} ± {:<6.4f}\n", r.ratio, r.train_nodes,
                       r.test_nodes, r.mean.micro, r.stddev.micro, r.mean.macro, r.stddev.macro);
  return out;
}

}  // namespace loom::embed::eval
