#include "loom/comm/ptscotch_partition.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <fmt/format.h>

#include "loom/comm/mpi_detail.hpp"
#include "loom/comm/mpi_session.hpp"
#include "loom/core/error.hpp"
#include "loom/core/log.hpp"
#include "loom/core/parallel.hpp"
#include "loom/core/timer.hpp"
#include "loom/partition/balance.hpp"

#if LOOM_WITH_PTSCOTCH
#include <ptscotch.h>
#endif

namespace loom::comm {

namespace {

// Where each rank's slice of rows starts (size P + 1): rank r holds the rows v whose
// v + indptr[v] (nodes plus stored edges before v) lies in [r, r + 1) x (nodes + edges) / P.
std::vector<std::int64_t> slice_starts(std::span<const std::int64_t> indptr, int ranks) {
  const auto n = static_cast<std::int64_t>(indptr.size()) - 1;
  const double total = static_cast<double>(n + indptr.back());
  std::vector<std::int64_t> starts(static_cast<std::size_t>(ranks) + 1, n);
  starts[0] = 0;
  for (int r = 1; r < ranks; ++r) {
    const double target = total * r / ranks;
    std::int64_t lo = starts[r - 1], hi = n;  // the first v >= lo with v + indptr[v] >= target
    while (lo < hi) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      if (static_cast<double>(mid + indptr[mid]) >= target)
        hi = mid;
      else
        lo = mid + 1;
    }
    starts[r] = lo;
  }
  return starts;
}

// The checks every rank makes before partitioning, so that all fail together. Its first collective
// is an agree(), which also meets a rank 0 that failed before it got here (partition_store_ptscotch).
void check_world(const Communicator& world, const graph::GraphStore& store, int num_parts) {
  world.agree(ptscotch_available(),
              "--method ptscotch: this Loom was built without PT-Scotch (apt-get install "
              "libptscotch-dev, then rebuild)");
  const std::int64_t n = store.num_nodes();
  const std::int64_t low = world.allreduce_min(n, Channel::control), high = world.allreduce_max(n, Channel::control);
  world.agree_on([&] {
    if (low != high)
      throw Error(
          fmt::format("--method ptscotch: the ranks opened different stores ({} to {} nodes); every rank must "
                      "read the same store",
                      low, high));
    if (world.size() > n)
      throw Error(
          fmt::format("--method ptscotch: {} ranks for a graph of {} nodes; each rank needs a slice of at "
                      "least one node, so run at most {} ranks (mpirun -np)",
                      world.size(), n, n));
    partition::check_num_parts(num_parts, n);
  });
}

#if LOOM_WITH_PTSCOTCH
static_assert(sizeof(SCOTCH_Num) == 8, "Loom uses PT-Scotch's 64-bit build (scotch-int64)");

void check_scotch(int status, const char* call) {
  if (status != 0) throw Error(fmt::format("--method ptscotch: {} failed (PT-Scotch's message is above)", call));
}

// This rank's rows of the symmetric graph without self-loops, as PT-Scotch takes them.
struct LocalGraph {
  std::vector<SCOTCH_Num> vertloctab{0};  // row offsets, size rows + 1
  std::vector<SCOTCH_Num> edgeloctab;     // global neighbour ids
  std::vector<SCOTCH_Num> veloloctab;     // vertex weights
};

// An edge to row `to` of the receiving rank's slice.
struct Edge {
  std::int64_t to, from;
};

// Of a directed store, the reverse of every edge of this rank's slice, sent to the rank whose
// slice holds its target: what each rank receives, per sender (nothing for undirected stores).
std::vector<std::vector<Edge>> reverse_edges(const Communicator& world, const graph::Csr& csr, bool directed,
                                             std::span<const std::int64_t> starts) {
  const std::int64_t begin = starts[world.rank()], end = starts[world.rank() + 1];
  std::vector<std::vector<Edge>> reverse(static_cast<std::size_t>(world.size()));
  if (directed) {
    csr.visit([&](auto view) {
      for (std::int64_t u = begin; u < end; ++u)
        for (const auto v : view.neighbors(u)) {
          if (v == u) continue;
          const auto owner =
              std::upper_bound(starts.begin(), starts.end(), static_cast<std::int64_t>(v)) - starts.begin() - 1;
          reverse[static_cast<std::size_t>(owner)].push_back({static_cast<std::int64_t>(v), u});
        }
    });
  }
  return world.alltoallv(reverse, Channel::partition);
}

// Row v of the slice [begin, end): its stored neighbours, the reverse edges of directed stores,
// sorted and deduplicated, self-loops dropped.
LocalGraph local_graph(const Communicator& world, const graph::Csr& csr, bool directed,
                       std::span<const std::int64_t> starts) {
  const std::int64_t begin = starts[world.rank()], end = starts[world.rank() + 1], rows = end - begin;
  const auto incoming = reverse_edges(world, csr, directed, starts);

  std::vector<std::int64_t> count(static_cast<std::size_t>(rows) + 1, 0);
  const auto indptr = csr.indptr();
  for (std::int64_t i = 0; i < rows; ++i) count[i + 1] = indptr[begin + i + 1] - indptr[begin + i];
  for (const auto& from : incoming)
    for (const Edge& e : from) ++count[e.to - begin + 1];
  for (std::int64_t i = 0; i < rows; ++i) count[i + 1] += count[i];
  std::vector<SCOTCH_Num> entries(static_cast<std::size_t>(count[rows]));
  std::vector<std::int64_t> fill(count.begin(), count.end() - 1);
  csr.visit([&](auto view) {
    core::parallel_for(rows, [&](std::int64_t i) {
      for (const auto v : view.neighbors(begin + i)) entries[fill[i]++] = static_cast<SCOTCH_Num>(v);
    });
  });
  for (const auto& from : incoming)
    for (const Edge& e : from) entries[fill[e.to - begin]++] = e.from;

  LocalGraph g;
  g.vertloctab.resize(static_cast<std::size_t>(rows) + 1);
  std::vector<std::int64_t> kept(static_cast<std::size_t>(rows));
  core::parallel_for(
      rows,
      [&](std::int64_t i) {
        auto first = entries.begin() + count[i], last = entries.begin() + count[i + 1];
        std::sort(first, last);
        last = std::unique(first, last);
        last = std::remove(first, last, static_cast<SCOTCH_Num>(begin + i));
        kept[i] = last - first;
      },
      256);
  std::int64_t out = 0;
  for (std::int64_t i = 0; i < rows; ++i) {
    std::copy(entries.begin() + count[i], entries.begin() + count[i] + kept[i], entries.begin() + out);
    out += kept[i];
    g.vertloctab[i + 1] = out;
  }
  entries.resize(static_cast<std::size_t>(out));
  entries.shrink_to_fit();
  g.edgeloctab = std::move(entries);
  return g;
}

// One weight per row blending the balance constraints, each scaled to weigh as much in total as
// the nodes do: 4 x (1 + degree x nodes / edges + is_train x nodes / training nodes), rounded.
std::vector<SCOTCH_Num> vertex_weights(const Communicator& world, const graph::GraphStore& store,
                                       std::span<const std::int64_t> starts) {
  constexpr double kScale = 4;
  const std::int64_t begin = starts[world.rank()], end = starts[world.rank() + 1];
  const partition::BalanceLoads loads(store, 1);
  const double n = static_cast<double>(store.num_nodes());
  const double edges = static_cast<double>(store.csr().indptr().back());
  const double train = store.has_split("train") ? static_cast<double>(store.split("train").size()) : 0;
  std::vector<SCOTCH_Num> w(static_cast<std::size_t>(end - begin));
  for (std::int64_t v = begin; v < end; ++v) {
    double weight = 1;
    if (edges > 0) weight += static_cast<double>(loads.degree(v)) * n / edges;
    if (train > 0 && loads.is_train(v)) weight += n / train;
    w[v - begin] = std::max<SCOTCH_Num>(1, std::llround(kScale * weight));
  }
  return w;
}

// PT-Scotch's objects, released in reverse order of creation. The context makes the run
// deterministic (one thread per rank, a fixed random seed): the same parts for the same store,
// K, seed and rank count.
struct ScotchSession {
  SCOTCH_Dgraph graph, bound;
  SCOTCH_Context context;
  SCOTCH_Strat strategy;
  int made = 0;  // how many of the four above were initialized, in that order
  ~ScotchSession() {
    if (made >= 4) SCOTCH_stratExit(&strategy);
    if (made >= 3) SCOTCH_contextExit(&context);
    if (made >= 2) SCOTCH_dgraphExit(&bound);
    if (made >= 1) SCOTCH_dgraphExit(&graph);
  }
};

std::vector<SCOTCH_Num> scotch_partition(const Communicator& world, LocalGraph& g, int num_parts, std::uint64_t seed) {
  const auto rows = static_cast<SCOTCH_Num>(g.vertloctab.size() - 1);
  const auto entries = static_cast<SCOTCH_Num>(g.edgeloctab.size());
  ScotchSession s;
  check_scotch(SCOTCH_dgraphInit(&s.graph, world.impl().comm), "SCOTCH_dgraphInit");
  ++s.made;
  check_scotch(SCOTCH_dgraphBuild(&s.graph, 0, rows, rows, g.vertloctab.data(), nullptr, g.veloloctab.data(), nullptr,
                                  entries, entries, g.edgeloctab.data(), nullptr, nullptr),
               "SCOTCH_dgraphBuild");
  check_scotch(SCOTCH_dgraphCheck(&s.graph), "SCOTCH_dgraphCheck (the graph is not symmetric)");
  check_scotch(SCOTCH_dgraphInit(&s.bound, world.impl().comm), "SCOTCH_dgraphInit");
  ++s.made;
  check_scotch(SCOTCH_contextInit(&s.context), "SCOTCH_contextInit");
  ++s.made;
  check_scotch(SCOTCH_contextOptionSetNum(&s.context, SCOTCH_OPTIONNUMDETERMINISTIC, 1), "SCOTCH_contextOptionSetNum");
  check_scotch(SCOTCH_contextOptionSetNum(&s.context, SCOTCH_OPTIONNUMRANDOMFIXEDSEED, 1),
               "SCOTCH_contextOptionSetNum");
  SCOTCH_contextRandomSeed(&s.context, static_cast<SCOTCH_Num>(seed & 0x7fffffffffffffffULL));
  check_scotch(SCOTCH_contextBindDgraph(&s.context, &s.graph, &s.bound), "SCOTCH_contextBindDgraph");
  check_scotch(SCOTCH_stratInit(&s.strategy), "SCOTCH_stratInit");
  ++s.made;
  check_scotch(
      SCOTCH_stratDgraphMapBuild(&s.strategy, SCOTCH_STRATSPEED, world.size(), num_parts, partition::kBalanceSlack - 1),
      "SCOTCH_stratDgraphMapBuild");
  std::vector<SCOTCH_Num> part(static_cast<std::size_t>(rows));
  check_scotch(SCOTCH_dgraphPart(&s.bound, num_parts, &s.strategy, part.data()), "SCOTCH_dgraphPart");
  return part;
}
#endif

}  // namespace

bool ptscotch_available() { return LOOM_WITH_PTSCOTCH != 0; }

std::vector<std::int32_t> ptscotch_parts(const Communicator& world, const graph::GraphStore& store, int num_parts,
                                         std::uint64_t seed) {
  check_world(world, store, num_parts);
#if LOOM_WITH_PTSCOTCH
  core::Timer timer;
  const auto starts = slice_starts(store.csr().indptr(), world.size());
  std::vector<std::int32_t> local;
  // Past the checks a failure may leave other ranks inside PT-Scotch's collectives: it ends the job.
  try {
    LocalGraph g = local_graph(world, store.csr(), store.meta().directed, starts);
    g.veloloctab = vertex_weights(world, store, starts);
    if (world.rank() == 0)
      spdlog::info("ptscotch: {} ranks, rank 0 holds rows [{}, {}) ({} adjacency entries), built in {:.1f}s",
                   world.size(), starts[0], starts[1], g.edgeloctab.size(), timer.seconds());
    timer.reset();
    const auto part = scotch_partition(world, g, num_parts, seed);
    local.assign(part.begin(), part.end());
  } catch (const std::exception& e) {
    abort_job(e.what());
  }
  auto gathered = world.gatherv(std::span<const std::int32_t>(local), Channel::partition, 0);
  std::vector<std::int32_t> parts;
  if (world.rank() == 0) {
    parts.reserve(static_cast<std::size_t>(store.num_nodes()));
    for (const auto& slice : gathered) parts.insert(parts.end(), slice.begin(), slice.end());
    spdlog::info("ptscotch: {} parts in {:.1f}s", num_parts, timer.seconds());
  }
  return parts;
#else
  return {};
#endif
}

partition::PartitionedMeta partition_store_ptscotch(const Communicator& world,
                                                    const partition::PartitionOptions& options) {
  partition::PartitionedMeta meta;
  if (world.rank() == 0) {
    world.agree_on([&] {
      meta = partition::partition_store(options, [&](const graph::GraphStore& source, int num_parts) {
        std::vector<std::int32_t> parts = ptscotch_parts(world, source, num_parts, options.seed);
        const std::int64_t moved = partition::rebalance(source, parts, num_parts);
        spdlog::info("ptscotch: {} nodes moved to keep every part within the balance caps", moved);
        return parts;
      });
    });
  } else {
    world.agree_on([&] {
      const auto source = graph::GraphStore::open(options.source);
      ptscotch_parts(world, source, static_cast<int>(options.num_parts), options.seed);
    });
  }
  return meta;
}

}  // namespace loom::comm
