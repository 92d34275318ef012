#include "loom/sample/neighbor_sampler.hpp"

#include <algorithm>
#include <memory>

#include "loom/core/ascending_order.hpp"
#include "loom/core/error.hpp"
#include "loom/core/memory.hpp"
#include "loom/core/parallel.hpp"
#include "loom/core/readahead.hpp"
#include "loom/core/rng.hpp"
#include "loom/sample/id_map.hpp"

namespace loom::sample {

namespace detail {

constexpr std::int64_t kRowsPerTask = 256;  // destination rows per parallel task
constexpr std::int64_t kFloydMaxPick = 64;  // Floyd with a linear membership scan up to here

// Writes `k` distinct positions of [0, n) (k < n) into `out` in increasing order.
inline void pick_positions(std::int64_t n, std::int64_t k, core::Rng& rng, std::int64_t* out,
                           std::vector<std::int64_t>& scratch) {
  if (k <= kFloydMaxPick) {
    // Floyd: for j = n-k .. n-1, draw t in [0, j]; take t unless already taken, else take j.
    std::int64_t taken = 0;
    for (std::int64_t j = n - k; j < n; ++j) {
      const auto t = static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(j + 1)));
      bool seen = false;
      for (std::int64_t q = 0; q < taken; ++q) seen |= out[q] == t;
      out[taken++] = seen ? j : t;
    }
  } else {
    // Partial Fisher-Yates over a scratch permutation of the positions.
    scratch.resize(static_cast<std::size_t>(n));
    for (std::int64_t q = 0; q < n; ++q) scratch[q] = q;
    for (std::int64_t q = 0; q < k; ++q) {
      const auto r = q + static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(n - q)));
      std::swap(scratch[q], scratch[r]);
      out[q] = scratch[q];
    }
  }
  std::sort(out, out + k);
}

// A read-ahead sweep over the neighbour lists of nodes[order[k]] (ascending ids), windows of
// about `window_bytes` of reads.
template <class IdT>
core::SweepAhead lists_ahead(graph::CsrView<IdT> g, std::span<const std::int64_t> nodes,
                             std::span<const std::int64_t> order, std::int64_t window_bytes) {
  constexpr auto kWidth = static_cast<std::int64_t>(sizeof(IdT));
  std::vector<core::ByteSpan> spans;
  spans.reserve(order.size());
  for (const std::int64_t i : order) spans.emplace_back(g.indptr[nodes[i]] * kWidth, g.indptr[nodes[i] + 1] * kWidth);
  return core::SweepAhead(g.indices.data(), std::move(spans), window_bytes);
}

// Samples one hop for the destination nodes nodes[0 .. num_dst) into `block`, appending newly
// seen source nodes to `nodes` and `map`. With `read_window` > 0 the neighbour lists are read in
// ascending node id, asked of the kernel a window of `read_window` bytes ahead; what is drawn for
// node i depends on i alone, so the block is the same.
template <class IdT>
void sample_hop(graph::CsrView<IdT> g, std::int64_t num_dst, std::int32_t fanout, const core::Rng& hop_rng, IdMap& map,
                std::vector<std::int64_t>& nodes, Block& block, std::int64_t read_window) {
  const bool in_csr_order = read_window > 0;
  const std::vector<std::int64_t> order = in_csr_order
                                              ? core::ascending_order(num_dst, [&](std::int64_t i) { return nodes[i]; })
                                              : std::vector<std::int64_t>{};
  const auto position = [&](std::int64_t k) { return in_csr_order ? order[k] : k; };
  block.num_dst = num_dst;
  block.indptr.assign(static_cast<std::size_t>(num_dst + 1), 0);
  for (std::int64_t k = 0; k < num_dst; ++k) {
    const std::int64_t i = position(k);
    const std::int64_t deg = g.degree(nodes[i]);
    block.indptr[i + 1] = fanout < 0 || deg <= fanout ? deg : fanout;
  }
  for (std::int64_t i = 0; i < num_dst; ++i) block.indptr[i + 1] += block.indptr[i];
  const std::int64_t num_edges = block.indptr[num_dst];
  auto picked = std::make_unique_for_overwrite<std::int64_t[]>(static_cast<std::size_t>(num_edges));

  const auto read_lists = [&](std::int64_t first, std::int64_t last) {
    core::parallel_for_blocks(last - first, kRowsPerTask, [&](std::int64_t begin, std::int64_t end, std::int64_t) {
      std::vector<std::int64_t> scratch;
      for (std::int64_t k = first + begin; k < first + end; ++k) {
        const std::int64_t i = position(k);
        const auto neighbors = g.neighbors(nodes[i]);
        const auto deg = static_cast<std::int64_t>(neighbors.size());
        std::int64_t* out = picked.get() + block.indptr[i];
        const std::int64_t take = block.indptr[i + 1] - block.indptr[i];
        if (take == deg) {
          for (std::int64_t q = 0; q < deg; ++q) out[q] = neighbors[q];
          continue;
        }
        core::Rng rng = hop_rng.split(static_cast<std::uint64_t>(i));
        pick_positions(deg, take, rng, out, scratch);
        for (std::int64_t q = 0; q < take; ++q) out[q] = neighbors[out[q]];
      }
    });
  };
  if (in_csr_order) {
    const core::SweepAhead ahead = lists_ahead(g, nodes, order, read_window);
    ahead.request(0);
    for (std::int64_t w = 0; w < ahead.windows(); ++w) {
      ahead.request(w + 1);
      read_lists(ahead.begin(w), ahead.end(w));
    }
  } else {
    read_lists(0, num_dst);
  }

  block.indices.resize(static_cast<std::size_t>(num_edges));
  for (std::int64_t e = 0; e < num_edges; ++e) {
    const auto [local, inserted] = map.insert(picked[e]);
    if (inserted) nodes.push_back(picked[e]);
    block.indices[e] = local;
  }
  block.num_src = static_cast<std::int64_t>(nodes.size());
}

}  // namespace detail

NeighborSampler::NeighborSampler(const graph::Csr& graph, std::vector<std::int32_t> fanouts)
    : graph_(&graph), fanouts_(std::move(fanouts)) {
  check_fanouts(fanouts_, "fanouts");
  LOOM_CHECK_ARG(graph.num_rows() == graph.num_cols(), "graph",
                 "sampling needs a square CSR (rows = columns = all nodes), got {} rows and {} columns",
                 graph.num_rows(), graph.num_cols());
  LOOM_CHECK_ARG(graph::fits_int32(graph.num_rows()), "graph", "{} nodes exceed the int32 local ids of a block",
                 graph.num_rows());
  const auto topology_bytes = graph.indptr_array().nbytes() + graph.indices_array().nbytes();
  csr_order_ = core::exceeds_half_available(static_cast<std::int64_t>(topology_bytes));
  // Lists are then read ahead exactly (lists_ahead in sample_hop); the kernel's readahead around each
  // fault would read megabytes for a list of a hundred bytes.
  if (csr_order_)
    core::advise_random(graph.indices_array().data(), static_cast<std::int64_t>(graph.indices_array().nbytes()));
}

NeighborSampler NeighborSampler::full_neighborhood(const graph::Csr& graph, int num_layers) {
  LOOM_CHECK_ARG(num_layers > 0, "layers", "need at least one layer, got {}", num_layers);
  return NeighborSampler(graph, std::vector<std::int32_t>(static_cast<std::size_t>(num_layers), -1));
}

SampledBatch NeighborSampler::sample(std::span<const std::int64_t> seeds, std::uint64_t seed) const {
  const std::int64_t num_nodes = graph_->num_rows();
  // Upper bound of the nodes this batch can touch, to pick the id map's representation.
  std::int64_t expected = static_cast<std::int64_t>(seeds.size());
  std::int64_t frontier = expected;
  for (const std::int32_t f : fanouts_) {
    frontier = f < 0 ? num_nodes : std::min(num_nodes, frontier * f);
    expected = std::min(num_nodes, expected + frontier);
  }
  IdMap map(num_nodes, expected);

  SampledBatch batch;
  batch.seeds.assign(seeds.begin(), seeds.end());
  std::vector<std::int64_t>& nodes = batch.input_nodes;
  nodes.reserve(static_cast<std::size_t>(expected));
  for (std::size_t i = 0; i < seeds.size(); ++i) {
    LOOM_CHECK_ARG(seeds[i] >= 0 && seeds[i] < num_nodes, "seeds", "seed {} (position {}) outside [0, {})", seeds[i], i,
                   num_nodes);
    LOOM_CHECK_ARG(map.insert(seeds[i]).second, "seeds", "seed {} appears twice (position {})", seeds[i], i);
    nodes.push_back(seeds[i]);
  }

  const core::Rng rng(seed);
  batch.blocks.resize(fanouts_.size());
  for (std::size_t hop = 0; hop < fanouts_.size(); ++hop) {
    Block& block = batch.blocks[fanouts_.size() - 1 - hop];
    const std::int64_t num_dst = static_cast<std::int64_t>(nodes.size());
    graph_->visit([&](auto view) {
      detail::sample_hop(view, num_dst, fanouts_[hop], rng.split(hop), map, nodes, block,
                         csr_order_ ? std::max<std::int64_t>(1, read_window_bytes_) : 0);
    });
    batch.num_sampled_edges += block.num_edges();
  }
  return batch;
}

std::uint64_t batch_seed(std::uint64_t run_seed, std::int64_t epoch, std::int64_t batch) {
  return core::Rng(run_seed).split(static_cast<std::uint64_t>(epoch), static_cast<std::uint64_t>(batch)).seed();
}

std::vector<std::int32_t> parse_fanouts(const std::string& text, const std::string& argument) {
  std::vector<std::int32_t> fanouts;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string field = text.substr(start, comma - start);
    std::size_t used = 0;
    long value = 0;
    try {
      value = std::stol(field, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    LOOM_CHECK_ARG(used > 0 && used == field.size(), argument, "'{}' is not a comma-separated list of integers", text);
    LOOM_CHECK_ARG(value >= -1 && value <= 1 << 30, argument, "fanout {} is out of range", value);
    fanouts.push_back(static_cast<std::int32_t>(value));
    start = comma + 1;
  }
  check_fanouts(fanouts, argument);
  return fanouts;
}

void check_fanouts(std::span<const std::int32_t> fanouts, const std::string& argument) {
  LOOM_CHECK_ARG(!fanouts.empty(), argument, "need at least one layer");
  for (const std::int32_t f : fanouts) {
    LOOM_CHECK_ARG(f > 0 || f == -1, argument, "fanout {} is invalid (want > 0, or -1 for all neighbours)", f);
    LOOM_CHECK_ARG(f <= 1 << 30, argument, "fanout {} is too large", f);
  }
}

}  // namespace loom::sample
