// The out-of-core CSR writer against build_csr(): byte-identical indptr, indices and weight files
// for every memory size (one row per range up to everything at once) and stream chunking (chunks
// that split rows), with duplicates, self-loops and weights under each policy.
#include "loom/graph/csr_writer.hpp"

#include <gtest/gtest.h>

#include "loom/format/npy.hpp"
#include "loom/core/rng.hpp"
#include "loom/graph/csr.hpp"
#include "support/test_support.hpp"

namespace loom::graph {
namespace {

// Edges with repeats, self-loops and a hub, weights when asked.
EdgeList random_edges(std::int64_t n, std::int64_t m, bool weighted, std::uint64_t seed) {
  core::Rng rng(seed);
  EdgeList e;
  e.num_nodes = n;
  for (std::int64_t i = 0; i < m; ++i) {
    const auto u = static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(n)));
    auto v = i % 7 == 0 ? 0 : static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(n)));
    if (i % 11 == 0) v = u;  // self-loop
    e.src.push_back(u);
    e.dst.push_back(v);
    if (weighted) e.weight.push_back(static_cast<float>(i));  // tells which duplicate survived
  }
  for (std::int64_t i = 0; i < m / 5; ++i) {  // repeats of earlier edges
    e.src.push_back(e.src[i * 3 % m]);
    e.dst.push_back(e.dst[i * 3 % m]);
    if (weighted) e.weight.push_back(static_cast<float>(m + i));
  }
  return e;
}

// build_csr() + the arrays write_store_files() writes, into dir/ref-*.
void write_reference(EdgeList edges, const CsrBuildOptions& o, const std::string& dir) {
  BuiltCsr built = build_csr(edges, o);
  format::write_npy(dir + "/ref-indptr.npy", built.indptr);
  std::vector<std::int32_t> narrow(built.indices.begin(), built.indices.end());
  format::write_npy(dir + "/ref-indices.npy", narrow);
  if (!built.weight.empty()) format::write_npy(dir + "/ref-weight.npy", built.weight);
}

struct Case {
  bool weighted;
  CsrBuildOptions options;
};

TEST(CsrWriter, FilesAreByteIdenticalToBuildCsrAtEveryMemoryAndChunkSize) {
  CsrBuildOptions keep_all;
  keep_all.duplicates = DuplicatePolicy::kKeep;
  keep_all.self_loops = SelfLoopPolicy::kKeep;
  CsrBuildOptions directed;
  directed.symmetric = false;
  for (const Case& c : {Case{false, {}}, Case{true, {}}, Case{true, keep_all}, Case{false, directed}}) {
    test::ScratchDir dir;
    const EdgeList edges = random_edges(300, 2000, c.weighted, 9);
    write_reference(edges, c.options, dir.path());
    for (const std::int64_t memory :
         {std::int64_t{1}, std::int64_t{700}, std::int64_t{16} << 10, std::int64_t{1} << 30}) {
      for (const std::int64_t chunk : {std::int64_t{1}, std::int64_t{37}, std::int64_t{1} << 20}) {
        SCOPED_TRACE(::testing::Message() << "weighted " << c.weighted << ", memory " << memory << ", chunk " << chunk);
        const EdgeListStream stream(edges, chunk);
        const CsrWriteReport report = write_csr_files(stream, c.options, dir.path(), memory);
        EXPECT_EQ(test::read_bytes(dir / "indptr.npy"), test::read_bytes(dir / "ref-indptr.npy"));
        EXPECT_EQ(test::read_bytes(dir / "indices.npy"), test::read_bytes(dir / "ref-indices.npy"));
        if (c.weighted) {
          EXPECT_EQ(test::read_bytes(dir / "weight.npy"), test::read_bytes(dir / "ref-weight.npy"));
        }
        EXPECT_EQ(report.input_edges, static_cast<std::int64_t>(edges.src.size()));
        if (memory == 1) {
          EXPECT_GE(report.passes, 301) << "one row per range";
        }
      }
    }
  }
}

TEST(CsrWriter, EdgesOutsideTheNodesAreAnError) {
  test::ScratchDir dir;
  EdgeList edges;
  edges.num_nodes = 3;
  edges.src = {0, 1};
  edges.dst = {1, 3};
  EXPECT_THROW(write_csr_files(EdgeListStream(edges, 8), {}, dir.path(), 1 << 20), Error);
}

}  // namespace
}  // namespace loom::graph
