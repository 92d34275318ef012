// "metis": METIS_PartGraphKway on the store's graph made symmetric, without self-loops or
// duplicate edges (what METIS requires), minimising the edge cut. Vertex weights balance up to
// three constraints, as DistDGL and SALIENT++ do: 1 per node, the node's stored degree, and 1
// per training node (when the store has a non-empty "train" split); a constraint whose total
// is zero is dropped. Seeded with METIS_OPTION_SEED; contiguous parts are not required.
#include <metis.h>

#include <algorithm>
#include <csignal>
#include <atomic>
#include <limits>

#include "loom/core/error.hpp"
#include "loom/core/log.hpp"
#include "loom/core/parallel.hpp"
#include "loom/core/timer.hpp"
#include "loom/partition/partitioner.hpp"

namespace loom::partition {

namespace {

static_assert(sizeof(idx_t) == 4, "Loom expects METIS built with 32-bit idx_t");

struct MetisGraph {
  std::vector<idx_t> xadj, adjncy;
};

// Symmetric adjacency: every stored edge u->v (u != v) contributes v to row u and u to row v;
// rows are then sorted and deduplicated, so the result does not depend on scatter order.
MetisGraph symmetric_adjacency(const graph::Csr& csr) {
  const std::int64_t n = csr.num_rows();
  std::vector<std::int64_t> count(static_cast<std::size_t>(n) + 1, 0);
  csr.visit([&](auto view) {
    core::parallel_for(n, [&](std::int64_t u) {
      for (const auto v : view.neighbors(u)) {
        if (v == u) continue;
        std::atomic_ref<std::int64_t>(count[u]).fetch_add(1, std::memory_order_relaxed);
        std::atomic_ref<std::int64_t>(count[v]).fetch_add(1, std::memory_order_relaxed);
      }
    });
  });
  std::vector<std::int64_t> start(static_cast<std::size_t>(n) + 1, 0);
  for (std::int64_t u = 0; u < n; ++u) start[u + 1] = start[u] + count[u];
  if (start[n] > std::numeric_limits<idx_t>::max())
    throw Error(
        fmt::format("metis: the symmetric graph has {} adjacency entries, more than 32-bit METIS can index", start[n]));

  MetisGraph g;
  g.adjncy.resize(static_cast<std::size_t>(start[n]));
  std::vector<std::int64_t> fill(start.begin(), start.end() - 1);
  csr.visit([&](auto view) {
    core::parallel_for(n, [&](std::int64_t u) {
      for (const auto v : view.neighbors(u)) {
        if (v == u) continue;
        g.adjncy[std::atomic_ref<std::int64_t>(fill[u]).fetch_add(1, std::memory_order_relaxed)] =
            static_cast<idx_t>(v);
        g.adjncy[std::atomic_ref<std::int64_t>(fill[v]).fetch_add(1, std::memory_order_relaxed)] =
            static_cast<idx_t>(u);
      }
    });
  });
  fill.clear();
  fill.shrink_to_fit();
  // Sort and deduplicate each row in place; count[u] becomes the row's unique length.
  core::parallel_for(
      n,
      [&](std::int64_t u) {
        auto first = g.adjncy.begin() + start[u], last = g.adjncy.begin() + start[u + 1];
        std::sort(first, last);
        count[u] = std::unique(first, last) - first;
      },
      256);
  g.xadj.resize(static_cast<std::size_t>(n) + 1);
  g.xadj[0] = 0;
  std::int64_t out = 0;
  for (std::int64_t u = 0; u < n; ++u) {
    std::copy(g.adjncy.begin() + start[u], g.adjncy.begin() + start[u] + count[u], g.adjncy.begin() + out);
    out += count[u];
    g.xadj[u + 1] = static_cast<idx_t>(out);
  }
  g.adjncy.resize(static_cast<std::size_t>(out));
  g.adjncy.shrink_to_fit();
  return g;
}

// Vertex weights, row-major [n, ncon]; returns ncon.
idx_t vertex_weights(const graph::GraphStore& store, std::vector<idx_t>& vwgt) {
  const std::int64_t n = store.num_nodes();
  const auto indptr = store.csr().indptr();
  std::vector<char> is_train(static_cast<std::size_t>(n), 0);
  std::int64_t train_total = 0;
  if (store.has_split("train")) {
    for (const auto v : store.split("train")) {
      if (v < 0 || v >= n)
        throw Error::in_file(store.dir() + "/train_idx.npy", 0, fmt::format("node id {} outside [0, {})", v, n));
      train_total += is_train[v] ? 0 : (is_train[v] = 1);
    }
  }
  if (indptr.back() > std::numeric_limits<idx_t>::max())
    throw Error(fmt::format("metis: {} stored edges overflow 32-bit METIS degree weights", indptr.back()));
  const bool use_degree = indptr.back() > 0;
  const bool use_train = train_total > 0;
  const idx_t ncon = 1 + (use_degree ? 1 : 0) + (use_train ? 1 : 0);
  vwgt.resize(static_cast<std::size_t>(n * ncon));
  core::parallel_for(
      n,
      [&](std::int64_t v) {
        idx_t* w = &vwgt[static_cast<std::size_t>(v * ncon)];
        *w++ = 1;
        if (use_degree) *w++ = static_cast<idx_t>(indptr[v + 1] - indptr[v]);
        if (use_train) *w = is_train[v];
      },
      1 << 14);
  return ncon;
}

// Whether this process has a handler of its own for SIGTERM (a `loom` command's).
bool sigterm_is_handled() {
  struct sigaction current {};
  sigaction(SIGTERM, nullptr, &current);
  return current.sa_handler != SIG_DFL && current.sa_handler != SIG_IGN;
}

class MetisPartitioner final : public Partitioner {
 public:
  std::string name() const override { return "metis"; }

  std::vector<std::int32_t> partition(const graph::GraphStore& store, int num_parts,
                                      std::uint64_t seed) const override {
    const std::int64_t n = store.num_nodes();
    if (num_parts == 1) return std::vector<std::int32_t>(static_cast<std::size_t>(n), 0);
    if (n > std::numeric_limits<idx_t>::max()) throw Error(fmt::format("metis: {} nodes exceed 32-bit METIS", n));
    core::Timer timer;
    MetisGraph g = symmetric_adjacency(store.csr());
    std::vector<idx_t> vwgt;
    idx_t ncon = vertex_weights(store, vwgt);
    spdlog::info("metis: {} nodes, {} undirected edges, {} balance constraints, adjacency built in {:.1f}s", n,
                 g.adjncy.size() / 2, ncon, timer.seconds());

    idx_t options[METIS_NOPTIONS];
    METIS_SetDefaultOptions(options);
    options[METIS_OPTION_OBJTYPE] = METIS_OBJTYPE_CUT;
    options[METIS_OPTION_CONTIG] = 0;
    options[METIS_OPTION_NUMBERING] = 0;
    options[METIS_OPTION_SEED] = static_cast<idx_t>(seed & 0x7fffffffULL);
    idx_t nvtxs = static_cast<idx_t>(n);
    idx_t nparts = num_parts;
    idx_t objval = 0;
    std::vector<idx_t> part(static_cast<std::size_t>(n));
    timer.reset();
    const int status = METIS_PartGraphKway(&nvtxs, &ncon, g.xadj.data(), g.adjncy.data(), vwgt.data(), nullptr, nullptr,
                                           &nparts, nullptr, nullptr, options, &objval, part.data());
    // METIS (GKlib) traps SIGTERM as its own error signal for the length of the call: a SIGTERM
    // sent to Loom then comes back as METIS_ERROR. Where a `loom` command handles SIGTERM it is
    // raised again, so that the command stops as a SIGTERM stops it anywhere else (temporaries
    // removed, exit 143; an error of METIS's own has printed its message already). Without a
    // handler (the library in another program) METIS_ERROR is an Error like the others.
    if (status == METIS_ERROR && sigterm_is_handled()) std::raise(SIGTERM);
    if (status != METIS_OK)
      throw Error(fmt::format("metis: METIS_PartGraphKway failed ({})", status == METIS_ERROR_MEMORY ? "out of memory"
                                                                        : status == METIS_ERROR_INPUT
                                                                            ? "invalid input"
                                                                            : "internal error"));
    spdlog::info("metis: {} parts, edge cut {} in {:.1f}s", num_parts, objval, timer.seconds());
    return std::vector<std::int32_t>(part.begin(), part.end());
  }
};

}  // namespace

std::unique_ptr<Partitioner> make_metis_partitioner() { return std::make_unique<MetisPartitioner>(); }

}  // namespace loom::partition
