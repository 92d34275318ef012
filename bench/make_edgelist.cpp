// make_edgelist OUT.gz NODES EDGES SEED: writes a gzip SNAP-style edge list with sparse 64-bit
// ids for the import benchmark (bench/bench_import.sh). Node i gets the id
// 10^12 + i * 4096 + (a seeded value below 4096), unique and far from 0..N-1, so the importer
// must remap. Sources are uniform; destinations are uniform half the time and skewed towards
// low node numbers otherwise (u^3), giving hubs. Edges are drawn in blocks, each seeded by
// rng.split(block), so the file depends only on the arguments.
#include <zlib.h>

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "loom/core/rng.hpp"

namespace {

std::int64_t sparse_id(std::int64_t node, const loom::core::Rng& ids) {
  auto rng = ids.split(static_cast<std::uint64_t>(node));
  return 1000000000000LL + node * 4096 + static_cast<std::int64_t>(rng.next() & 4095);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: make_edgelist OUT.gz NODES EDGES SEED\n");
    return 2;
  }
  const std::string out = argv[1];
  const std::int64_t nodes = std::atoll(argv[2]), edges = std::atoll(argv[3]);
  const std::uint64_t seed = std::strtoull(argv[4], nullptr, 10);
  if (nodes <= 1 || edges <= 0) {
    std::fprintf(stderr, "make_edgelist: NODES must be > 1 and EDGES > 0\n");
    return 2;
  }
  gzFile gz = gzopen(out.c_str(), "wb1");
  if (!gz) {
    std::fprintf(stderr, "make_edgelist: cannot write %s\n", out.c_str());
    return 1;
  }
  const loom::core::Rng root(seed);
  const loom::core::Rng ids = root.split(0), draws = root.split(1);
  constexpr std::int64_t kBlock = 1 << 16;
  std::vector<char> text;
  char number[24];
  std::fprintf(stderr, "make_edgelist: %lld nodes, %lld edges -> %s\n", static_cast<long long>(nodes),
               static_cast<long long>(edges), out.c_str());
  gzprintf(gz, "# Synthetic benchmark graph, one edge per line: FromNodeId ToNodeId\n# Nodes: %lld Edges: %lld\n",
           static_cast<long long>(nodes), static_cast<long long>(edges));
  for (std::int64_t begin = 0, block = 0; begin < edges; begin += kBlock, ++block) {
    auto rng = draws.split(static_cast<std::uint64_t>(block));
    text.clear();
    const std::int64_t end = begin + kBlock < edges ? begin + kBlock : edges;
    auto append = [&](std::int64_t node, char separator) {
      auto [ptr, ec] = std::to_chars(number, number + sizeof(number), sparse_id(node, ids));
      text.insert(text.end(), number, ptr);
      text.push_back(separator);
    };
    for (std::int64_t e = begin; e < end; ++e) {
      const auto u = static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(nodes)));
      std::int64_t v;
      if (rng.next() & 1) {
        v = static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(nodes)));
      } else {
        const double x = rng.uniform();
        v = static_cast<std::int64_t>(x * x * x * static_cast<double>(nodes));
      }
      append(u, ' ');
      append(v, '\n');
    }
    if (gzwrite(gz, text.data(), static_cast<unsigned>(text.size())) != static_cast<int>(text.size())) {
      std::fprintf(stderr, "make_edgelist: write failed for %s\n", out.c_str());
      gzclose(gz);
      return 1;
    }
  }
  if (gzclose(gz) != Z_OK) {
    std::fprintf(stderr, "make_edgelist: closing %s failed\n", out.c_str());
    return 1;
  }
  return 0;
}
