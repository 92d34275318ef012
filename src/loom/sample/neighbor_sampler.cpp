#include "loom/sample/neighbor_sampler.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

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
// How far ahead reads are asked for (in visits of destinations, or of sampled edges for the id
// map): enough cache misses in flight to cover the memory's latency, few enough that what was
// asked for is still in the L1 cache when it is read.
constexpr std::int64_t kOffsetsAhead = 32;
constexpr std::int64_t kRowsAhead = 16;
constexpr std::int64_t kEdgesAhead = 64;
constexpr std::int64_t kListLinesAhead = 4;  // cache lines of one list asked for at most
constexpr std::uintptr_t kCacheLine = 64;

// Where each destination's neighbour list lies in the CSR.
struct ListSpans {
  std::vector<std::int64_t> first;   // position of its first neighbour
  std::vector<std::int64_t> degree;  // length of its list
};

// What a thread reuses from hop to hop and batch to batch, so that sampling allocates little.
struct HopScratch {
  ListSpans lists;
  std::vector<std::int64_t> picked;  // per sampled edge: a position in its list, then the neighbour's id
};

struct SampleScratch {
  IdMap map;
  HopScratch hop;
};

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

// Asks for the cache lines of [data, data + bytes), at most kListLinesAhead of them (the hardware
// streams the rest of a long list).
inline void prefetch_lines(const void* data, std::int64_t bytes) {
  const auto first = reinterpret_cast<std::uintptr_t>(data) & ~(kCacheLine - 1);
  const auto last = reinterpret_cast<std::uintptr_t>(data) + static_cast<std::uintptr_t>(bytes);
  std::int64_t n = 0;
  for (std::uintptr_t line = first; line < last && n < kListLinesAhead; line += kCacheLine, ++n)
    __builtin_prefetch(reinterpret_cast<const void*>(line));
}

// Counts what each destination takes into block.indptr (prefix-summed) and notes where its list
// lies in the CSR, asking for the CSR offsets of the destinations kOffsetsAhead visits ahead.
template <class IdT, class Position>
void count_takes(graph::CsrView<IdT> g, std::span<const std::int64_t> nodes, std::int64_t num_dst, std::int32_t fanout,
                 Position position, Block& block, ListSpans& lists) {
  block.num_dst = num_dst;
  block.indptr.assign(static_cast<std::size_t>(num_dst + 1), 0);
  lists.first.resize(static_cast<std::size_t>(num_dst));
  lists.degree.resize(static_cast<std::size_t>(num_dst));
  for (std::int64_t k = 0; k < num_dst; ++k) {
    if (k + kOffsetsAhead < num_dst) __builtin_prefetch(g.indptr.data() + nodes[position(k + kOffsetsAhead)]);
    const std::int64_t i = position(k);
    const std::int64_t begin = g.indptr[nodes[i]];
    const std::int64_t deg = g.indptr[nodes[i] + 1] - begin;
    lists.first[i] = begin;
    lists.degree[i] = deg;
    block.indptr[i + 1] = fanout < 0 || deg <= fanout ? deg : fanout;
  }
  for (std::int64_t i = 0; i < num_dst; ++i) block.indptr[i + 1] += block.indptr[i];
}

// Draws the sampled neighbours of the destinations visited k in [first_k, last_k) into picked, in
// two stages kRowsAhead visits apart: draw() picks a destination's positions and asks for the
// neighbour ids they name; read() reads them, by then on their way from memory.
template <class IdT, class Position>
void draw_rows(graph::CsrView<IdT> g, const ListSpans& lists, const Block& block, const core::Rng& hop_rng,
               Position position, std::int64_t first_k, std::int64_t last_k, std::int64_t* picked) {
  std::vector<std::int64_t> scratch;
  const auto draw = [&](std::int64_t i) {
    const IdT* list = g.indices.data() + lists.first[i];
    const std::int64_t n = lists.degree[i];
    std::int64_t* out = picked + block.indptr[i];
    const std::int64_t take = block.indptr[i + 1] - block.indptr[i];
    if (take == n) {
      prefetch_lines(list, n * static_cast<std::int64_t>(sizeof(IdT)));
      return;
    }
    core::Rng rng = hop_rng.split(static_cast<std::uint64_t>(i));
    pick_positions(n, take, rng, out, scratch);
    const std::int64_t bytes = n * static_cast<std::int64_t>(sizeof(IdT));
    if (bytes <= kListLinesAhead * static_cast<std::int64_t>(kCacheLine)) {
      prefetch_lines(list, bytes);  // a short list: its lines, once each
    } else {
      for (std::int64_t q = 0; q < take; ++q) __builtin_prefetch(list + out[q]);
    }
  };
  const auto read = [&](std::int64_t i) {
    const IdT* list = g.indices.data() + lists.first[i];
    std::int64_t* out = picked + block.indptr[i];
    const std::int64_t take = block.indptr[i + 1] - block.indptr[i];
    if (take == lists.degree[i]) {
      for (std::int64_t q = 0; q < take; ++q) out[q] = list[q];
    } else {
      for (std::int64_t q = 0; q < take; ++q) out[q] = list[out[q]];
    }
  };
  for (std::int64_t k = first_k; k < last_k + kRowsAhead; ++k) {
    if (k < last_k) draw(position(k));
    if (k - kRowsAhead >= first_k) read(position(k - kRowsAhead));
  }
}

// Samples one hop for the destination nodes nodes[0 .. num_dst) into `block`, appending newly
// seen source nodes to `nodes` and `map`. With `read_window` > 0 the neighbour lists are read in
// ascending node id, asked of the kernel a window of `read_window` bytes ahead; what is drawn for
// node i depends on i alone, so the block is the same.
template <class IdT>
void sample_hop(graph::CsrView<IdT> g, std::int64_t num_dst, std::int32_t fanout, const core::Rng& hop_rng, IdMap& map,
                std::vector<std::int64_t>& nodes, Block& block, std::int64_t read_window, HopScratch& scratch) {
  const bool in_csr_order = read_window > 0;
  const std::vector<std::int64_t> order = in_csr_order
                                              ? core::ascending_order(num_dst, [&](std::int64_t i) { return nodes[i]; })
                                              : std::vector<std::int64_t>{};
  const auto position = [&](std::int64_t k) { return in_csr_order ? order[k] : k; };
  count_takes(g, nodes, num_dst, fanout, position, block, scratch.lists);
  const std::int64_t num_edges = block.indptr[num_dst];
  if (static_cast<std::int64_t>(scratch.picked.size()) < num_edges)
    scratch.picked.resize(static_cast<std::size_t>(num_edges));
  std::int64_t* picked = scratch.picked.data();

  const auto read_lists = [&](std::int64_t first_k, std::int64_t last_k) {
    core::parallel_for_blocks(last_k - first_k, kRowsPerTask, [&](std::int64_t begin, std::int64_t end, std::int64_t) {
      draw_rows(g, scratch.lists, block, hop_rng, position, first_k + begin, first_k + end, picked);
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

  // Local ids in edge order, asking for the map's slot of the edge kEdgesAhead on.
  block.indices.resize(static_cast<std::size_t>(num_edges));
  for (std::int64_t e = 0; e < num_edges; ++e) {
    if (e + kEdgesAhead < num_edges) map.prefetch(picked[e + kEdgesAhead]);
    const auto [local, inserted] = map.insert(picked[e]);
    if (inserted) nodes.push_back(picked[e]);
    block.indices[e] = local;
  }
  block.num_src = static_cast<std::int64_t>(nodes.size());
}

}  // namespace detail

NeighborSampler::NeighborSampler(const graph::Csr& graph, Fanouts fanouts)
    : graph_(&graph), fanouts_(std::move(fanouts)) {
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

SampledBatch NeighborSampler::sample(std::span<const std::int64_t> seeds, std::uint64_t seed) const {
  const std::int64_t num_nodes = graph_->num_rows();
  // Upper bound of the nodes this batch can touch, to pick the id map's representation.
  std::int64_t expected = static_cast<std::int64_t>(seeds.size());
  std::int64_t frontier = expected;
  for (const std::int32_t f : fanouts_) {
    frontier = f < 0 ? num_nodes : std::min(num_nodes, frontier * f);
    expected = std::min(num_nodes, expected + frontier);
  }
  // Reused by the calling thread from batch to batch (the id map's table, the hops' buffers).
  thread_local detail::SampleScratch scratch;
  IdMap& map = scratch.map;
  map.begin(num_nodes, expected);

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
                         csr_order_ ? std::max<std::int64_t>(1, read_window_bytes_) : 0, scratch.hop);
    });
    batch.num_sampled_edges += block.num_edges();
  }
  return batch;
}

std::uint64_t batch_seed(std::uint64_t run_seed, std::int64_t epoch, std::int64_t batch) {
  return core::Rng(run_seed).split(static_cast<std::uint64_t>(epoch), static_cast<std::uint64_t>(batch)).seed();
}

}  // namespace loom::sample
