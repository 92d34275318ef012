// Imports write their stores out of core (edges spilled or mapped, the CSR built in passes): the
// store equals, byte for byte, the one the same import assembled in memory writes, for each
// importer and id form, at a memory size that needs many passes.
#include <filesystem>

#include <gtest/gtest.h>

#include "loom/format/npy.hpp"
#include "loom/graph/io/edgelist.hpp"
#include "loom/graph/io/npy_import.hpp"
#include "loom/graph/io/ogb.hpp"
#include "support/test_support.hpp"

namespace fs = std::filesystem;

namespace loom::graph::io {
namespace {

constexpr std::int64_t kSmallMemory = 256;  // bytes: a few rows per pass

// Writes `read(spill)` out of core into dir/stream and `assemble_in_memory` of a second read into
// dir/memory, and compares them.
void expect_same_both_ways(const test::ScratchDir& dir, const std::function<ImportedGraph(const std::string&)>& read) {
  fs::create_directories(dir / "stream");
  {
    ImportedGraph g = read(dir / "stream");
    write_imported_store(g, dir / "stream", format::DType::kFloat32, kSmallMemory);
  }
  fs::create_directories(dir / "spill");
  write_graph_store(assemble_in_memory(read(dir / "spill")), dir / "memory", {});
  EXPECT_GE(test::expect_same_store(dir / "memory", dir / "stream"), 3);
}

TEST(OutOfCoreImport, EdgeListsOfEveryIdFormMatchTheInMemoryStore) {
  const std::string edges = "# comment\n1000 7\n7 99\n99 1000\n5 5\n7 1000\n42 99\n1000 42\n";
  for (const std::string ids : {"numeric", "string", "given"}) {
    for (const bool weighted : {false, true}) {
      SCOPED_TRACE(ids + (weighted ? " weighted" : ""));
      test::ScratchDir dir;
      EdgeListImportOptions o;
      o.path = dir / "edges.txt";
      o.weighted = weighted;
      std::string text;
      int line = 0;
      for (std::size_t start = 0; start < edges.size();) {
        const std::size_t end = edges.find('\n', start);
        std::string l = edges.substr(start, end - start);
        if (weighted && l[0] != '#') l += " " + std::to_string(++line) + ".5";
        text += l + "\n";
        start = end + 1;
      }
      test::write_file(o.path, text);
      if (ids == "string") o.ids = IdKind::kString;
      if (ids == "given") o.num_nodes = 1001;
      o.policy.self_loops = SelfLoopPolicy::kKeep;
      expect_same_both_ways(dir, [&](const std::string& spill) { return read_edgelist(o, spill); });
    }
  }
}

TEST(OutOfCoreImport, NpyArraysInCooAndCsrFormMatchTheInMemoryStore) {
  for (const bool csr : {false, true}) {
    test::ScratchDir dir;
    fs::create_directories(dir / "in");
    if (csr) {
      format::write_npy(dir / "in/indptr.npy", std::vector<std::int64_t>{0, 2, 2, 5, 6});
      format::write_npy(dir / "in/indices.npy", std::vector<std::int32_t>{1, 3, 0, 1, 3, 2});
    } else {
      format::write_npy(dir / "in/src.npy", std::vector<std::int32_t>{0, 2, 3, 1, 2, 0});
      format::write_npy(dir / "in/dst.npy", std::vector<std::int64_t>{1, 3, 0, 2, 1, 1});
    }
    format::write_npy(dir / "in/feat.npy", std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8}, {4, 2});
    NpyImportOptions o;
    o.dir = dir / "in";
    expect_same_both_ways(dir, [&](const std::string&) { return read_npy(o); });
  }
}

TEST(OutOfCoreImport, OgbDirectoriesMatchTheInMemoryStore) {
  test::ScratchDir dir;
  const std::string ogb = dir / "ogb";
  fs::create_directories(ogb + "/raw");
  test::write_file(ogb + "/raw/edge.csv.gz", "0,1\n1,2\n2,0\n2,3\n3,3\n1,0\n", true);
  test::write_file(ogb + "/raw/num-node-list.csv.gz", "5\n", true);
  test::write_file(ogb + "/raw/node-feat.csv.gz", "0.5,1\n2,3\n4,5\n6,-7.25\n1,1\n", true);
  test::write_file(ogb + "/raw/node-label.csv.gz", "0\n2\n-1\n1\n0\n", true);
  OgbImportOptions o;
  o.dir = ogb;
  expect_same_both_ways(dir, [&](const std::string& spill) { return read_ogb(o, spill); });
}

}  // namespace
}  // namespace loom::graph::io
