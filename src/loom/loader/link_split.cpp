#include "loom/loader/link_split.hpp"

#include <algorithm>

#include "loom/core/error.hpp"
#include "loom/core/rng.hpp"

namespace loom::loader {

namespace {

enum class EdgeUse { kTrain, kValid, kTest };

class EdgeAssignment {
 public:
  EdgeAssignment(const TrainingData& data, const LinkSplitOptions& o) : data_(&data), o_(o) {}

  // Where edge (u, v) goes (an undirected edge the same both ways).
  EdgeUse use(std::int64_t u, std::int64_t v) const {
    std::int64_t a = source_row(u), b = source_row(v);
    if (!directed() && a > b) std::swap(a, b);
    const double r = static_cast<double>(core::mix_seed(core::mix_seed(o_.seed, static_cast<std::uint64_t>(a)),
                                                        static_cast<std::uint64_t>(b)) >>
                                         11) *
                     0x1.0p-53;
    return r < o_.valid ? EdgeUse::kValid : r < o_.valid + o_.test ? EdgeUse::kTest : EdgeUse::kTrain;
  }
  bool directed() const { return data_->topology.meta().directed; }
  // Whether this rank scores the pair (u, v) of an edge listed at row u.
  bool mine(std::int64_t u, std::int64_t v) const {
    return u != v && (directed() || u < v) && u >= data_->offset && u < data_->offset + data_->num_local;
  }

 private:
  std::int64_t source_row(std::int64_t global) const {
    return data_->source_rows.empty() ? global : data_->source_rows[static_cast<std::size_t>(global)];
  }
  const TrainingData* data_;
  LinkSplitOptions o_;
};

// `count` negatives (u, w) per positive of `held`, appended to it.
void add_negatives(LinkPairs& held, const graph::Csr& whole, int count, std::uint64_t seed) {
  const std::size_t positives = held.size();
  const std::int64_t n = whole.num_rows();
  whole.visit([&](auto view) {
    for (std::size_t i = 0; i < positives; ++i) {
      const std::int64_t u = held.src[i];
      const auto neighbours = view.neighbors(u);
      if (view.degree(u) + 1 >= n) continue;  // u is next to every node: no negative exists
      core::Rng rng = core::Rng(seed).split(static_cast<std::uint64_t>(u), static_cast<std::uint64_t>(held.dst[i]));
      for (int k = 0; k < count; ++k) {
        std::int64_t w = u;
        while (w == u || std::find(neighbours.begin(), neighbours.end(), w) != neighbours.end())
          w = static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(n)));
        held.add(u, w, 0.0F);
      }
    }
  });
}

}  // namespace

LinkSplit split_links(const TrainingData& data, const LinkSplitOptions& o) {
  const EdgeAssignment assignment(data, o);
  const graph::Csr& whole = data.topology.csr();
  LinkSplit split;
  const bool holds_out = o.valid + o.test > 0;  // else the message graph is the whole graph
  std::vector<std::int64_t> indptr(static_cast<std::size_t>(holds_out ? whole.num_rows() + 1 : 1), 0), indices;
  if (holds_out) indices.reserve(static_cast<std::size_t>(whole.num_edges()));
  whole.visit([&](auto view) {
    for (std::int64_t u = 0; u < view.num_rows(); ++u) {
      for (const auto neighbour : view.neighbors(u)) {
        const auto v = static_cast<std::int64_t>(neighbour);
        const EdgeUse use = u == v ? EdgeUse::kTrain : assignment.use(u, v);
        if (use == EdgeUse::kTrain && holds_out) indices.push_back(v);
        if (!assignment.mine(u, v)) continue;
        (use == EdgeUse::kTrain ? split.train : use == EdgeUse::kValid ? split.valid : split.test).add(u, v, 1.0F);
      }
      if (holds_out) indptr[static_cast<std::size_t>(u + 1)] = static_cast<std::int64_t>(indices.size());
    }
  });
  if (holds_out) split.message_graph = graph::Csr::from_vectors(std::move(indptr), indices, whole.num_cols());
  add_negatives(split.valid, whole, o.eval_negatives, core::mix_seed(o.seed, 0x76616c6964 /*"valid"*/));
  add_negatives(split.test, whole, o.eval_negatives, core::mix_seed(o.seed, 0x74657374 /*"test"*/));
  return split;
}

}  // namespace loom::loader
